#pragma once

// The worker environment variables that only the agent sets, because its
// own checks, inventory and GPU mapping depend on them (docs/CONFIG.md,
// "Variables the agent owns"):
//   NCCL_IB_HCA          from --ib-hca: checked against sysfs, reported in the
//                        inventory, always in exact-match '=' form (a plain
//                        "mlx5_1" also matches mlx5_10..19);
//   NCCL_SOCKET_IFNAME   from --bootstrap-interface: checked to be up, '=' form;
//   CUDA_VISIBLE_DEVICES never set: the agent's GPU index i is the i-th GPU of
//                        the host in PCI order, and a narrowed list would
//                        remap it and disable CUDA IPC between local ranks
//                        (NVIDIA/nccl#129); --gpus picks GPUs instead;
//   CUDA_DEVICE_ORDER    always PCI_BUS_ID, for the same index mapping;
//   EB_WORKER_TOKEN      each worker's own secret token (common/spec/worker_token.h).
// Setting one of them in --worker-env ([worker.env]) is refused at start;
// the NCCL ones in the agent's own environment too (the operator meant the
// workers to use them, so dropping them would test something else); the
// CUDA ones in the agent's environment are not passed on, with a warning.
// Pure.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace eb::agent {

// True for the five names above: never taken from the agent's environment
// or --worker-env.
bool IsAgentOwnedVariable(absl::string_view name);

// OK, or INVALID_ARGUMENT "NCCL_IB_HCA cannot be set in the workers'
// environment: ..." naming the flag and config key to use instead. `value`
// shapes the suggestion ("use --ib-hca mlx5_1").
absl::Status CheckWorkerEnvVariable(absl::string_view name, absl::string_view value);

// The agent's own environment ("KEY=VALUE" entries): INVALID_ARGUMENT when
// it sets NCCL_IB_HCA or NCCL_SOCKET_IFNAME, naming the variable, its value
// and the flag to use instead.
absl::Status CheckAgentEnvironment(const std::vector<std::string>& env);

// What to warn about in the agent's own environment: CUDA_VISIBLE_DEVICES
// (not passed on to the workers), CUDA_DEVICE_ORDER other than PCI_BUS_ID
// (overridden).
std::vector<std::string> AgentEnvironmentWarnings(const std::vector<std::string>& env);

}  // namespace eb::agent
