#pragma once

// Judges the rails of a split-rails test (TestSpec.split_rails): which rail
// is slow against the others, and which of its members held it up. One
// rail = GPU r of every node and the NIC beside it, so a slow rail with a
// late member names the GPU (or its NIC) to look at; a slow rail with flat
// arrivals points at the rail's network path (NICs, cables, leaf switch).
// Pure: no I/O, no clock.

#include "ebnccl/v1/control.pb.h"

namespace eb::validation {

// A rail is slow below (1 - this) x the median of the rails' average busbw:
// the validation's default tolerance (VALIDATION.md).
inline constexpr double kSlowRailTolerance = 0.10;

// Sets busbw_ratio, slow and straggler (AttributeByArrival over the rail's
// members, its rank a global rank, node and local rank filled in) of every
// rail of `report` that has results. With one rail nothing is slow (no
// other rail to compare with), but its straggler is still named.
void JudgeRails(ebnccl::v1::TestReport& report);

}  // namespace eb::validation
