#pragma once

// What the agent makes of the host's GPUs: the NVIDIA driver's list (read
// by agent/host/nvidia_driver.h, without initialising CUDA) completed with
// NVML's details, the GPUs one agent owns, and the check of configured GPU
// indices. Index order is PCI bus order, which is CUDA's order with
// CUDA_DEVICE_ORDER=PCI_BUS_ID (the agent sets it for every worker) and
// NVML's. Pure: the lists come in as values, NVML through GpuDetailsSource.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "agent/core/nvml.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::agent {

// Fills name and memory of each of `gpus` from the NVML GPU with the same
// PCI bus id (case and domain width do not matter). Returns a line for
// each GPU NVML did not describe and each NVML GPU that is not in `gpus`,
// plus report.problems; empty when every GPU was matched.
std::vector<std::string> ApplyNvmlDetails(const NvmlReport& report,
                                          std::vector<ebnccl::v1::GpuInfo>* gpus);

struct DiscoveredGpus {
  // Every GPU of the host, in bus order.
  std::vector<ebnccl::v1::GpuInfo> gpus;
  // Empty when NVML described every GPU; else why memory is 0 for some or
  // all of them (no NVML library, an NVML error, unmatched GPUs), one line.
  std::string nvml_note;
};

// ApplyNvmlDetails to the driver's `gpus` with what `nvml` answers. NVML is
// not asked when `gpus` is empty.
DiscoveredGpus AddGpuDetails(std::vector<ebnccl::v1::GpuInfo> gpus, GpuDetailsSource& nvml);

// The GPUs an agent owns: `gpu_indices` picked out of `all` in that order,
// or all when empty. Indices that do not exist are skipped (the agent
// checks them at start).
std::vector<ebnccl::v1::GpuInfo> SelectGpus(const std::vector<ebnccl::v1::GpuInfo>& all,
                                            const std::vector<int>& gpu_indices);

// OK when every one of `gpu_indices` names one of the host's `host_gpus`
// GPUs; else INVALID_ARGUMENT "GPU 7 does not exist (this host has 4)" for
// the first that does not (callers prefix where the index came from).
absl::Status CheckGpuIndices(const std::vector<int>& gpu_indices, size_t host_gpus);

}  // namespace eb::agent
