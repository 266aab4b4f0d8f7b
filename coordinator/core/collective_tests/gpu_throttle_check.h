#pragma once

// The GPU throttle counters of a rank's report (RankTiming.gpu_throttle) are
// untrusted input: a number that would name a GPU as the culprit must be
// one the GPU could have measured (docs/RELIABILITY.md, "GPU throttling").

#include "absl/status/status.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::coordinator {

// INVALID_ARGUMENT naming the field ("in_place.gpu_throttle.thermal_us: 2e+06
// is not a number from 0 to 1e+06") for NaN, infinities, negatives, a wall
// over a week of microseconds, and any policy's time over the wall (the
// worker clamps what NVML's coarse counters overshoot, so more is a lie).
// OK when a placement has none (a CPU rank, an older worker, no NVML).
absl::Status CheckReportedGpuThrottle(const ebnccl::v1::RankSizeResult& result);

}  // namespace eb::coordinator
