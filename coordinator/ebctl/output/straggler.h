#pragma once

// Which rank was slow most often over a whole test. nccl-tests prints no
// per-rank time at all (NCCL_FACTS.md 2.2); one summary line is what a
// fleet operator needs to pick the node to drain, without a straggler line
// per size.

#include <cstdint>
#include <optional>

#include "ebnccl/v1/control.pb.h"

namespace eb::ebctl {

struct SlowestRank {
  // Global rank.
  int32_t rank = -1;
  // Measurements (size x variant) in which this rank had the largest time.
  int slowest_count = 0;
  // Measurements considered: those of tests with at least two ranks whose
  // slowest rank is known and whose max time exceeds the min time.
  int measurements = 0;
  // Mean, over the measurements in which it was slowest, of how much its
  // time exceeded the rank average, in percent.
  double mean_excess_pct = 0.0;
};

// The rank that was slowest in the most measurements (ties: the lower rank),
// or nullopt when nothing qualifies (one rank, no results, all equal).
std::optional<SlowestRank> FindSlowestRank(const ebnccl::v1::TestReport& report);

}  // namespace eb::ebctl
