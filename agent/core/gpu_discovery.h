#pragma once

// Finds the node's GPUs without initialising CUDA (a CUDA-initialised agent
// could not spawn CUDA workers): the NVIDIA driver lists each GPU under
// /proc/driver/nvidia/gpus/<pci bus id>/information. Index order is PCI bus
// order, which is CUDA's order with CUDA_DEVICE_ORDER=PCI_BUS_ID and NVML's.

#include <string>
#include <vector>
#include <vector>

#include "absl/strings/string_view.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::agent {

// GPUs under `proc_root` (empty when the driver is absent). Memory is not
// in that file and stays 0 until NVML is consulted.
std::vector<ebnccl::v1::GpuInfo> DiscoverGpus(
    absl::string_view proc_root = "/proc/driver/nvidia/gpus");

// The GPUs an agent owns: `gpu_indices` picked out of DiscoverGpus() in
// that order, or all when empty. Indices that do not exist are skipped (the
// agent checks them at start).
std::vector<ebnccl::v1::GpuInfo> OwnedGpus(const std::vector<int>& gpu_indices);

// The driver version from /proc/driver/nvidia/version, or "".
std::string DriverVersion(absl::string_view version_file = "/proc/driver/nvidia/version");

}  // namespace eb::agent
