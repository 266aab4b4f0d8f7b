#pragma once

// The lines of run-test's footer that say whom a result is to blame on:
// the straggler, the culprit, and ranks whose times disagree. Each reads a
// report already made printable (printable.h); pure.

#include <string>

#include "ebnccl/v1/control.pb.h"

namespace eb::ebctl {

// "# Straggler: ...", "# Culprit: ...", "# Rank times disagree: ...", each
// only when the report holds it, in that order.
std::string AttributionLines(const ebnccl::v1::TestReport& printable);

}  // namespace eb::ebctl
