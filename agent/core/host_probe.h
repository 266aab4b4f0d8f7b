#pragma once

// What `eb-agent --check-config` (config_check.h) asks of the host, so that
// the checks stay pure and tests use a fake. The real one is RealHostProbe
// (agent/host/real_host_probe.h).

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/core/fabric_config.h"
#include "agent/core/gpu_discovery.h"
#include "common/net/interfaces.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::agent {

// Methods are called from the calling thread only and may block for the
// given timeout.
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

}  // namespace eb::agent
