#pragma once

// The worker's GPU throttle probe on the real host: NVML loaded with
// dlopen("libnvidia-ml.so.1") into transport::NvmlThrottleFunctions, one
// NvmlGpuReader for this rank's GPU (by the PCI bus id the agent assigned),
// and a probe around each timed batch (docs/RELIABILITY.md, "GPU
// throttling"). NCCL workers only: a CPU rank has no GPU to ask.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/transport/gpu_throttle_probe.h"
#include "common/transport/nvml_throttle.h"

namespace eb::worker {

// The entry points of the host's NVML, loaded once per process (the
// library stays loaded). UNAVAILABLE naming the library or the missing
// symbol when it cannot be loaded (no driver on this host, a driver too
// old). The clock event reasons fall back to the older
// nvmlDeviceGetCurrentClocksThrottleReasons, and are null when neither
// exists.
absl::StatusOr<transport::NvmlThrottleFunctions> LoadSystemNvmlThrottle();

// A probe reading GPU `pci_bus_id` through `functions`; nullptr, after one
// warning that says why, when NVML cannot be opened for it (no library, an
// error, the GPU not found). A reading that fails later is no sample, also
// warned once. Never fails the test: the counters only add evidence.
std::unique_ptr<transport::GpuThrottleProbe> OpenGpuThrottleProbe(
    const absl::StatusOr<transport::NvmlThrottleFunctions>& functions,
    const std::string& pci_bus_id);

}  // namespace eb::worker
