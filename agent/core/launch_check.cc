#include "agent/core/launch_check.h"

#include <set>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/spec/identifiers.h"
#include "common/spec/limits.h"
#include "common/spec/nccl_env.h"
#include "common/spec/numbers.h"
#include "common/transport/collective_layout.h"

namespace eb::agent {
namespace {

constexpr size_t kMaxStopReasonLength = 4096;

// The range ebctl and the coordinator check too (spec::kTimeoutRange).
absl::Status CheckTimeout(int64_t value, absl::string_view field) {
  return spec::CheckDurationMs(value, field, spec::kTimeoutRange);
}

absl::Status CheckRanks(const ebnccl::v1::LaunchTest& launch, int worker_slots) {
  const int count = launch.ranks_size();
  if (count == 0) return absl::OkStatus();  // nothing to start: WorkersStopped at once
  if (count > worker_slots) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ranks: ", count, " ranks for this node, which has ", worker_slots, " worker slots"));
  }
  const int world_size = launch.ranks(0).world_size();
  if (world_size <= 0 || world_size > spec::kMaxRanksPerTest) {
    return absl::InvalidArgumentError(absl::StrCat("ranks[0].world_size: must be 1 to ",
                                                   spec::kMaxRanksPerTest, ", got ", world_size));
  }
  std::set<int> ranks, local_ranks;
  for (int i = 0; i < count; ++i) {
    const ebnccl::v1::RankAssignment& r = launch.ranks(i);
    const std::string field = absl::StrCat("ranks[", i, "]");
    if (r.world_size() != world_size) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".world_size: ", r.world_size(), ", ranks[0] has ", world_size));
    }
    if (r.rank() < 0 || r.rank() >= world_size) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".rank: must be 0 to ", world_size - 1, ", got ", r.rank()));
    }
    if (!ranks.insert(r.rank()).second) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".rank: ", r.rank(), " repeats"));
    }
    if (r.local_rank() < 0 || r.local_rank() >= worker_slots) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".local_rank: must be 0 to ",
                                                     worker_slots - 1, ", got ", r.local_rank()));
    }
    if (!local_ranks.insert(r.local_rank()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".local_rank: ", r.local_rank(), " repeats"));
    }
    if (r.device_index() < -1 || r.device_index() >= worker_slots) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".device_index: must be -1 to ",
                                                     worker_slots - 1, ", got ", r.device_index()));
    }
    if (r.node_index() < 0 || r.node_index() >= spec::kMaxNodesPerTest) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".node_index: must be 0 to ",
                                                     spec::kMaxNodesPerTest - 1, ", got ",
                                                     r.node_index()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckLaunch(const ebnccl::v1::LaunchTest& launch, int worker_slots) {
  if (absl::Status id = spec::CheckTestId(launch.test_id(), "test_id"); !id.ok()) return id;
  if (absl::Status ranks = CheckRanks(launch, worker_slots); !ranks.ok()) return ranks;
  if (absl::Status env =
          spec::CheckNcclEnv({launch.spec().nccl_env().begin(), launch.spec().nccl_env().end()});
      !env.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("spec.", env.message()));
  }
  if (absl::Status sizes = transport::CheckSweepSizes(launch.sizes_bytes(),
                                                      launch.spec().max_bytes(), "sizes_bytes");
      !sizes.ok()) {
    return sizes;
  }
  for (const auto& [value, field] : {std::pair{launch.register_timeout_ms(), "register_timeout_ms"},
                                     std::pair{launch.init_timeout_ms(), "init_timeout_ms"},
                                     std::pair{launch.op_timeout_ms(), "op_timeout_ms"}}) {
    if (absl::Status timeout = CheckTimeout(value, field); !timeout.ok()) return timeout;
  }
  return absl::OkStatus();
}

absl::Status CheckStop(const ebnccl::v1::StopTest& stop) {
  if (absl::Status id = spec::CheckTestId(stop.test_id(), "stop.test_id"); !id.ok()) return id;
  if (stop.reason().size() > kMaxStopReasonLength) {
    return absl::InvalidArgumentError(absl::StrCat("stop.reason: ", stop.reason().size(),
                                                   " bytes, at most ", kMaxStopReasonLength));
  }
  return absl::OkStatus();
}

absl::Status CheckFetchLog(const ebnccl::v1::FetchLog& fetch) {
  if (absl::Status id = spec::CheckTestId(fetch.test_id(), "fetch_log.test_id"); !id.ok()) {
    return id;
  }
  if (fetch.rank() < 0 || fetch.rank() >= spec::kMaxRanksPerTest) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fetch_log.rank: must be 0 to ", spec::kMaxRanksPerTest - 1, ", got ", fetch.rank()));
  }
  if (fetch.max_bytes() < 1 || fetch.max_bytes() > spec::kMaxLogPageBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fetch_log.max_bytes: must be 1 to ", spec::kMaxLogPageBytes, ", got ", fetch.max_bytes()));
  }
  if (fetch.has_offset() && fetch.offset() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("fetch_log.offset: must be >= 0, got ", fetch.offset()));
  }
  return absl::OkStatus();
}

absl::StatusOr<absl::Duration> CheckRegisterReply(const ebnccl::v1::RegisterReply& reply) {
  const int64_t period = reply.heartbeat_period_ms();
  if (period < spec::kMinHeartbeatPeriodMs || period > spec::kMaxHeartbeatPeriodMs) {
    return absl::InvalidArgumentError(absl::StrCat("register_reply.heartbeat_period_ms: must be ",
                                                   spec::kMinHeartbeatPeriodMs, " to ",
                                                   spec::kMaxHeartbeatPeriodMs, ", got ", period));
  }
  return absl::Milliseconds(period);
}

}  // namespace eb::agent
