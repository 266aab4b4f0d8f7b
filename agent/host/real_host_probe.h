#pragma once

// HostProbe (agent/core/host_probe.h) on this host: /sys, /proc, NVML,
// TCP, stat(2) and access(2).

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/core/host_probe.h"

namespace eb::agent {

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

}  // namespace eb::agent
