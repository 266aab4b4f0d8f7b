#pragma once

// `eb-agent --check-config`: checks of the configuration against the host
// before the service is started: the coordinator answers, the bootstrap
// interface is up, every configured HCA port exists and is ACTIVE, the GPUs
// exist, NCCL can be loaded, the worker binary runs and the run directory is
// writable. The host is reached only through HostProbe (host_probe.h), so
// tests use a fake. Pure. The effective configuration that --check-config
// prints first is agent/effective_config.h.

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "agent/core/agent_core_config.h"
#include "agent/core/host_probe.h"

namespace eb::agent {

// One line of --check-config.
struct CheckResult {
  // What was checked: "coordinator", "bootstrap_interface",
  // "ib_hca mlx5_100:1", "gpus", "nccl", "worker_binary", "run_dir", ...
  std::string name;
  bool ok = false;
  // What was found, or what is wrong.
  std::string detail;
};

struct CheckOptions {
  // How long the coordinator gets to accept a TCP connection.
  absl::Duration connect_timeout = absl::Seconds(2);
};

// Checks `config` (after ResolveAgentConfig has resolved the node name,
// worker slots, worker binary, run dir and the workers' NCCL version,
// config.nccl_version / nccl_problem) against the host, in a fixed order: node_name,
// coordinator, bootstrap_interface, bootstrap_address (when set), one line
// per HCA port (or one "ib_hca" line when none is set), gpus, nccl,
// worker_binary, run_dir, worker_env. Blocks for at most
// options.connect_timeout (plus name resolution) on the coordinator.
std::vector<CheckResult> CheckAgentConfig(const AgentCoreConfig& config, const HostProbe& probe,
                                          const CheckOptions& options = {});

// True when every result is ok: --check-config exits 0.
bool AllChecksPassed(const std::vector<CheckResult>& results);

// "ok    coordinator: node0:29470 accepts connections" or
// "FAIL  ib_hca mlx5_103:1: DOWN, ...": one line, no newline.
std::string FormatCheckResult(const CheckResult& result);

}  // namespace eb::agent
