#pragma once

// Finds the node's GPUs without initialising CUDA (a CUDA-initialised agent
// could not spawn CUDA workers): the NVIDIA driver lists each GPU under
// /proc/driver/nvidia/gpus/<pci bus id>/information. Index order is PCI bus
// order, which is CUDA's order with CUDA_DEVICE_ORDER=PCI_BUS_ID (the agent
// sets it for every worker) and NVML's. NVML, where present, adds each
// GPU's memory (and its name and bus id as NVML spells them).

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "agent/core/nvml.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::agent {

inline constexpr char kProcNvidiaGpus[] = "/proc/driver/nvidia/gpus";

// GPUs under `proc_root` (empty when the driver is absent), bus ids
// normalised (common::CanonicalPciBusId). Memory is not in that file and
// stays 0.
std::vector<ebnccl::v1::GpuInfo> DiscoverGpus(absl::string_view proc_root = kProcNvidiaGpus);

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

// DiscoverGpus, then ApplyNvmlDetails with what `nvml` answers. NVML is not
// asked when the driver lists no GPU.
DiscoveredGpus DiscoverGpusWithDetails(GpuDetailsSource& nvml,
                                       absl::string_view proc_root = kProcNvidiaGpus);

// The GPUs an agent owns: `gpu_indices` picked out of `all` in that order,
// or all when empty. Indices that do not exist are skipped (the agent
// checks them at start).
std::vector<ebnccl::v1::GpuInfo> SelectGpus(const std::vector<ebnccl::v1::GpuInfo>& all,
                                            const std::vector<int>& gpu_indices);

// OK when every one of `gpu_indices` names one of the host's `host_gpus`
// GPUs; else INVALID_ARGUMENT "GPU 7 does not exist (this host has 4)" for
// the first that does not (callers prefix where the index came from).
absl::Status CheckGpuIndices(const std::vector<int>& gpu_indices, size_t host_gpus);

// SelectGpus(DiscoverGpus(), gpu_indices): /proc only, no NVML.
std::vector<ebnccl::v1::GpuInfo> OwnedGpus(const std::vector<int>& gpu_indices);

// The driver version from /proc/driver/nvidia/version, or "".
std::string DriverVersion(absl::string_view version_file = "/proc/driver/nvidia/version");

}  // namespace eb::agent
