#pragma once

// One GPU's throttle counters from NVML, over a table of entry points: the
// worker fills it with dlopen("libnvidia-ml.so.1") (agent/worker/
// system_gpu_throttle.h), tests with fakes, so that nothing here needs
// nvml.h or the library. The agent's own NVML table (agent/core/nvml.h) is
// the same style for other queries. Pure: loads nothing itself.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/transport/gpu_throttle_probe.h"

namespace eb::transport {

// The few NVML types read here, declared with nvml.h's layout.
namespace nvml_throttle {
using Return = int;                              // nvmlReturn_t
inline constexpr Return kSuccess = 0;            // NVML_SUCCESS
inline constexpr Return kErrorNotSupported = 3;  // NVML_ERROR_NOT_SUPPORTED
inline constexpr Return kErrorNotFound = 6;      // NVML_ERROR_NOT_FOUND
using Device = struct ThrottleDeviceOpaque*;     // nvmlDevice_t
// nvmlViolationTime_t.
struct ViolationTime {
  unsigned long long reference_time;  // referenceTime: CPU timestamp, us
  unsigned long long violation_time;  // violationTime: ns
};
}  // namespace nvml_throttle

// The entry points (nvmlPerfPolicyType_t is a C enum: an int).
// get_clocks_event_reasons and error_string may be null.
struct NvmlThrottleFunctions {
  nvml_throttle::Return (*init)() = nullptr;      // nvmlInit_v2
  nvml_throttle::Return (*shutdown)() = nullptr;  // nvmlShutdown
  // nvmlDeviceGetHandleByPciBusId_v2
  nvml_throttle::Return (*get_handle_by_pci_bus_id)(const char*, nvml_throttle::Device*) = nullptr;
  // nvmlDeviceGetViolationStatus
  nvml_throttle::Return (*get_violation_status)(nvml_throttle::Device, int,
                                                nvml_throttle::ViolationTime*) = nullptr;
  // nvmlDeviceGetCurrentClocksEventReasons, or on drivers older than it
  // nvmlDeviceGetCurrentClocksThrottleReasons (same signature and bits).
  nvml_throttle::Return (*get_clocks_event_reasons)(nvml_throttle::Device,
                                                    unsigned long long*) = nullptr;
  const char* (*error_string)(nvml_throttle::Return) = nullptr;  // nvmlErrorString
};

// One GPU, NVML initialised for the reader's life (nvmlInit_v2 in Open,
// nvmlShutdown in the destructor: once per worker).
class NvmlGpuReader {
 public:
  // UNAVAILABLE naming the call and NVML's error when init fails (no
  // driver, a driver/library mismatch) or the table lacks an entry point;
  // NOT_FOUND naming the bus id when no GPU has it (NVML's own
  // "00000000:18:00.0", CUDA's or the agent's form all do).
  static absl::StatusOr<std::unique_ptr<NvmlGpuReader>> Open(const NvmlThrottleFunctions& functions,
                                                             const std::string& pci_bus_id);
  ~NvmlGpuReader();
  NvmlGpuReader(const NvmlGpuReader&) = delete;
  NvmlGpuReader& operator=(const NvmlGpuReader&) = delete;

  // Every policy's violation counter and the clock event reasons. A policy
  // or the reasons NVML does not support on this GPU are nullopt; any other
  // error is UNAVAILABLE naming the call, the policy and NVML's error.
  absl::StatusOr<GpuCounters> Read() const;

 private:
  NvmlGpuReader(const NvmlThrottleFunctions& functions, nvml_throttle::Device device)
      : functions_(functions), device_(device) {}

  const NvmlThrottleFunctions functions_;
  const nvml_throttle::Device device_;
};

// "thermal" for GpuPolicy::kThermal: the policy's name in messages, the
// summary and the JSON ("power", "thermal", "sync_boost", "board_limit",
// "low_utilization", "reliability").
const char* GpuPolicyName(int policy);

}  // namespace eb::transport
