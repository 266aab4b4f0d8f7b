#pragma once

// The node's GPUs and driver version as the NVIDIA kernel driver lists them,
// without initialising CUDA (a CUDA-initialised agent could not spawn CUDA
// workers): each GPU under /proc/driver/nvidia/gpus/<pci bus id>/information,
// the version in /proc/driver/nvidia/version. Index order is PCI bus order
// (agent/core/gpu_discovery.h says why).

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "agent/core/gpu_discovery.h"
#include "agent/core/nvml.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::agent {

inline constexpr char kProcNvidiaGpus[] = "/proc/driver/nvidia/gpus";

// GPUs under `proc_root` (empty when the driver is absent), bus ids
// normalised (common::CanonicalPciBusId). Memory is not in that file and
// stays 0.
std::vector<ebnccl::v1::GpuInfo> DiscoverGpus(absl::string_view proc_root = kProcNvidiaGpus);

// DiscoverGpus, then AddGpuDetails with what `nvml` answers. NVML is not
// asked when the driver lists no GPU.
DiscoveredGpus DiscoverGpusWithDetails(GpuDetailsSource& nvml,
                                       absl::string_view proc_root = kProcNvidiaGpus);

// SelectGpus(DiscoverGpus(), gpu_indices): /proc only, no NVML.
std::vector<ebnccl::v1::GpuInfo> OwnedGpus(const std::vector<int>& gpu_indices);

// The driver version from /proc/driver/nvidia/version, or "".
std::string DriverVersion(absl::string_view version_file = "/proc/driver/nvidia/version");

}  // namespace eb::agent
