#pragma once

// The agent's checks of every CoordinatorMessage before it acts on one. The
// agent runs as root and obeys what answers at the coordinator's address,
// which may be of another ebnccl version or not ebnccl at all
// (docs/SECURITY_FINDINGS cases 1-5): every field is untrusted input. A
// refused message starts nothing (no worker, no file) and its error names
// the field. Pure; the bounds are in common/spec/limits.h.

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "ebnccl/v1/agent.pb.h"

namespace eb::agent {

// OK, or INVALID_ARGUMENT naming the field:
// - test_id: an identifier (spec::CheckTestId), never a path fragment;
// - ranks: at most `worker_slots` of them (none: nothing starts) (this agent's own slots, not what
// the
//   coordinator believes); each with 0 <= rank < world_size <=
//   kMaxRanksPerTest, the same world_size in all, distinct ranks,
//   0 <= local_rank < worker_slots, distinct, device_index -1 or in
//   [0, worker_slots) and node_index >= 0;
// - spec.nccl_env: the allow-list shared with the coordinator
//   (common/spec/nccl_env.h): never LD_PRELOAD;
// - sizes_bytes: 1 to transport::kMaxSweepSizes sizes, each >= 0,
//   non-decreasing and at most spec.max_bytes (the workers' buffers are
//   sized for it; an older coordinator sends none);
// - register_timeout_ms, init_timeout_ms, op_timeout_ms: > 0 and at most
//   kMaxTimeoutMs (the workers' own deadlines).
absl::Status CheckLaunch(const ebnccl::v1::LaunchTest& launch, int worker_slots);

// StopTest: test_id an identifier; reason at most 4096 bytes.
absl::Status CheckStop(const ebnccl::v1::StopTest& stop);

// FetchLog: test_id an identifier, 0 <= rank < kMaxRanksPerTest,
// 1 <= max_bytes <= kMaxLogPageBytes (-1 aborted the agent, case 4), and
// offset, when set, >= 0.
absl::Status CheckFetchLog(const ebnccl::v1::FetchLog& fetch);

// RegisterReply: kMinHeartbeatPeriodMs <= heartbeat_period_ms <=
// kMaxHeartbeatPeriodMs (0 made the agent spin, case 5). The period to
// keep, or INVALID_ARGUMENT naming the field.
absl::StatusOr<absl::Duration> CheckRegisterReply(const ebnccl::v1::RegisterReply& reply);

}  // namespace eb::agent
