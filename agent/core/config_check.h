#pragma once

// `eb-agent --check-config`: the effective configuration printed back as
// TOML, and checks of it against the host before the service is started:
// the coordinator answers, the bootstrap interface is up, every configured
// HCA port exists and is ACTIVE, the GPUs exist, NCCL can be loaded, the
// worker binary runs and the run directory is writable. The host is reached
// only through HostProbe, so tests use a fake.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/config.h"
#include "agent/config_file.h"
#include "agent/core/fabric_config.h"
#include "agent/core/gpu_discovery.h"
#include "common/net/interfaces.h"
#include "ebnccl/v1/common.pb.h"

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

// What the checks ask of the host. The real one reads the host; methods are
// called from the calling thread only and may block for the given timeout.
class HostProbe {
 public:
  virtual ~HostProbe() = default;
  // The host's network interfaces (common::ListInterfaces). INTERNAL when
  // they cannot be listed.
  virtual absl::StatusOr<std::vector<common::InterfaceInfo>> Interfaces() const = 0;
  // The given HCA ports as found under `sysfs_root` (CheckHcas). NOT_FOUND
  // naming a missing HCA or port.
  virtual absl::StatusOr<std::vector<ebnccl::v1::HcaInfo>> Hcas(
      const std::vector<HcaPort>& hcas, const std::string& sysfs_root) const = 0;
  // Every GPU of the host in CUDA (PCI bus) order, with NVML's details
  // where it has them (DiscoverGpusWithDetails).
  virtual DiscoveredGpus Gpus() const = 0;
  // Opens (and closes) a TCP connection to `host_port` ("HOST:PORT").
  // UNAVAILABLE when refused or unresolvable, DEADLINE_EXCEEDED when nothing
  // answers within `timeout`.
  virtual absl::Status Connect(const std::string& host_port, absl::Duration timeout) const = 0;
  // OK when `path` is a regular file this user may execute, else
  // INVALID_ARGUMENT saying why.
  virtual absl::Status CheckExecutable(const std::string& path) const = 0;
  // How `path` will be used ("exists, writable" or "will be created in
  // /run"), or INVALID_ARGUMENT when it is not a directory or this user
  // cannot write it (or its nearest existing parent). Creates nothing.
  virtual absl::StatusOr<std::string> CheckWritableDir(const std::string& path) const = 0;
};

// HostProbe on this host: /sys, /proc, NVML, TCP, access(2).
class RealHostProbe final : public HostProbe {
 public:
  absl::StatusOr<std::vector<common::InterfaceInfo>> Interfaces() const override;
  absl::StatusOr<std::vector<ebnccl::v1::HcaInfo>> Hcas(
      const std::vector<HcaPort>& hcas, const std::string& sysfs_root) const override;
  DiscoveredGpus Gpus() const override;
  absl::Status Connect(const std::string& host_port, absl::Duration timeout) const override;
  absl::Status CheckExecutable(const std::string& path) const override;
  absl::StatusOr<std::string> CheckWritableDir(const std::string& path) const override;
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
std::vector<CheckResult> CheckAgentConfig(const AgentConfig& config, const HostProbe& probe,
                                          const CheckOptions& options = {});

// True when every result is ok: --check-config exits 0.
bool AllChecksPassed(const std::vector<CheckResult>& results);

// "ok    coordinator: node0:29470 accepts connections" or
// "FAIL  ib_hca mlx5_103:1: DOWN, ...": one line, no newline.
std::string FormatCheckResult(const CheckResult& result);

// The effective configuration as agent.toml text that ApplyAgentConfigFile
// reads back to the same settings. agent.workers is printed as the resolved
// config.worker_slots.
std::string FormatEffectiveConfig(const AgentSettings& settings);

}  // namespace eb::agent
