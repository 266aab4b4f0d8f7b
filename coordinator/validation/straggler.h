#pragma once

// Which rank was slow most often over a whole test. nccl-tests prints no
// per-rank time at all (NCCL_FACTS.md 2.2); one summary, computed once when
// the coordinator finalizes a report and stored in it (TestReport.
// slowest_rank), is what a fleet operator needs to pick the node to drain,
// without a straggler line per size. Pure: no I/O, no clock; callable from
// any thread.

#include <optional>

#include "ebnccl/v1/control.pb.h"

namespace eb::validation {

// Below this mean excess (the slowest rank's time over the rank average, in
// percent, over the measurements where it was slowest) no rank is a
// straggler: healthy runs spread 0.1-0.3%, and naming a rank for that is
// noise (issue 16).
inline constexpr double kMinStragglerExcessPct = 5.0;

// The rank that was slowest in the most measurements (ties: the lower rank),
// with its node and slot from the report's rank map (local_rank -1 when the
// map lacks the rank), or nullopt when nothing qualifies: fewer than two
// ranks, no results, equal times everywhere, or that rank's mean excess
// below kMinStragglerExcessPct. A measurement is one variant
// (out-of-place, in-place) of one size; it counts when it has at least two
// ranks, a slowest rank >= 0, and max time > min time.
std::optional<ebnccl::v1::SlowestRank> FindSlowestRank(const ebnccl::v1::TestReport& report);

}  // namespace eb::validation
