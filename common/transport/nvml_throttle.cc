#include "common/transport/nvml_throttle.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace eb::transport {
namespace {

std::string ErrorText(const NvmlThrottleFunctions& functions, nvml_throttle::Return code) {
  const char* text = functions.error_string != nullptr ? functions.error_string(code) : nullptr;
  return text != nullptr ? absl::StrCat(text, " (", code, ")") : absl::StrCat("NVML error ", code);
}

}  // namespace

const char* GpuPolicyName(int policy) {
  static constexpr const char* kNames[kGpuPolicies] = {
      "power", "thermal", "sync_boost", "board_limit", "low_utilization", "reliability"};
  return policy >= 0 && policy < kGpuPolicies ? kNames[policy] : "?";
}

absl::StatusOr<std::unique_ptr<NvmlGpuReader>> NvmlGpuReader::Open(
    const NvmlThrottleFunctions& functions, const std::string& pci_bus_id) {
  if (functions.init == nullptr || functions.shutdown == nullptr ||
      functions.get_handle_by_pci_bus_id == nullptr || functions.get_violation_status == nullptr) {
    return absl::UnavailableError("NVML lacks an entry point the GPU throttle probe needs");
  }
  if (const nvml_throttle::Return code = functions.init(); code != nvml_throttle::kSuccess) {
    return absl::UnavailableError(absl::StrCat("nvmlInit_v2: ", ErrorText(functions, code)));
  }
  nvml_throttle::Device device = nullptr;
  const nvml_throttle::Return code =
      functions.get_handle_by_pci_bus_id(pci_bus_id.c_str(), &device);
  if (code != nvml_throttle::kSuccess) {
    functions.shutdown();
    const std::string what = absl::StrCat("nvmlDeviceGetHandleByPciBusId_v2(", pci_bus_id,
                                          "): ", ErrorText(functions, code));
    return code == nvml_throttle::kErrorNotFound ? absl::NotFoundError(what)
                                                 : absl::UnavailableError(what);
  }
  return std::unique_ptr<NvmlGpuReader>(new NvmlGpuReader(functions, device));
}

NvmlGpuReader::~NvmlGpuReader() { functions_.shutdown(); }

absl::StatusOr<GpuCounters> NvmlGpuReader::Read() const {
  GpuCounters counters;
  for (int p = 0; p < kGpuPolicies; ++p) {
    nvml_throttle::ViolationTime time{};
    const nvml_throttle::Return code = functions_.get_violation_status(device_, p, &time);
    if (code == nvml_throttle::kErrorNotSupported) continue;
    if (code != nvml_throttle::kSuccess) {
      return absl::UnavailableError(absl::StrCat("nvmlDeviceGetViolationStatus(", GpuPolicyName(p),
                                                 "): ", ErrorText(functions_, code)));
    }
    counters.violation_ns[p] = time.violation_time;
  }
  if (functions_.get_clocks_event_reasons == nullptr) return counters;
  unsigned long long reasons = 0;
  const nvml_throttle::Return code = functions_.get_clocks_event_reasons(device_, &reasons);
  if (code == nvml_throttle::kSuccess) {
    counters.reasons = reasons;
  } else if (code != nvml_throttle::kErrorNotSupported) {
    return absl::UnavailableError(
        absl::StrCat("nvmlDeviceGetCurrentClocksEventReasons: ", ErrorText(functions_, code)));
  }
  return counters;
}

}  // namespace eb::transport
