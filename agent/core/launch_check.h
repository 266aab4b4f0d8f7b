#pragma once

// The agent's check of a LaunchTest before it starts anything: the command
// comes over the network from a coordinator that may be of another ebnccl
// version, and what it carries goes to the workers as is. Pure.

#include "absl/status/status.h"
#include "ebnccl/v1/agent.pb.h"

namespace eb::agent {

// OK, or INVALID_ARGUMENT naming the field: sizes_bytes must hold 1 to
// transport::kMaxSweepSizes sizes, each >= 0, non-decreasing and at most
// spec.max_bytes (the workers' buffers are sized for it; an older
// coordinator sends none); init_timeout_ms and op_timeout_ms must be > 0
// (the workers' own deadlines); no rank may appear twice in ranks.
absl::Status CheckLaunch(const ebnccl::v1::LaunchTest& launch);

}  // namespace eb::agent
