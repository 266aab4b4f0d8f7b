#include "agent/worker/system_gpu_throttle.h"

#include <dlfcn.h>

#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace eb::worker {
namespace {

constexpr char kLibrary[] = "libnvidia-ml.so.1";

template <typename Function>
Function Symbol(void* library, const char* name) {
  return reinterpret_cast<Function>(dlsym(library, name));
}

absl::StatusOr<transport::NvmlThrottleFunctions> Load() {
  // RTLD_LOCAL: NVML's symbols stay out of the worker's namespace; never
  // closed (NVML loads the CUDA driver, which stays for good anyway).
  void* library = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = dlerror();
    return absl::UnavailableError(
        absl::StrCat(kLibrary, " cannot be loaded (", error != nullptr ? error : "?", ")"));
  }
  transport::NvmlThrottleFunctions f;
  f.init = Symbol<decltype(f.init)>(library, "nvmlInit_v2");
  f.shutdown = Symbol<decltype(f.shutdown)>(library, "nvmlShutdown");
  f.get_handle_by_pci_bus_id =
      Symbol<decltype(f.get_handle_by_pci_bus_id)>(library, "nvmlDeviceGetHandleByPciBusId_v2");
  f.get_violation_status =
      Symbol<decltype(f.get_violation_status)>(library, "nvmlDeviceGetViolationStatus");
  f.get_clocks_event_reasons = Symbol<decltype(f.get_clocks_event_reasons)>(
      library, "nvmlDeviceGetCurrentClocksEventReasons");
  if (f.get_clocks_event_reasons == nullptr) {
    f.get_clocks_event_reasons = Symbol<decltype(f.get_clocks_event_reasons)>(
        library, "nvmlDeviceGetCurrentClocksThrottleReasons");
  }
  f.error_string = Symbol<decltype(f.error_string)>(library, "nvmlErrorString");
  if (f.init == nullptr || f.shutdown == nullptr || f.get_handle_by_pci_bus_id == nullptr ||
      f.get_violation_status == nullptr) {
    return absl::UnavailableError(
        absl::StrCat(kLibrary,
                     " lacks nvmlInit_v2, nvmlShutdown, nvmlDeviceGetHandleByPciBusId_v2 or "
                     "nvmlDeviceGetViolationStatus (driver too old?)"));
  }
  return f;
}

}  // namespace

absl::StatusOr<transport::NvmlThrottleFunctions> LoadSystemNvmlThrottle() {
  static std::once_flag once;
  static absl::StatusOr<transport::NvmlThrottleFunctions>* loaded = nullptr;
  std::call_once(once,
                 [] { loaded = new absl::StatusOr<transport::NvmlThrottleFunctions>(Load()); });
  return *loaded;
}

std::unique_ptr<transport::GpuThrottleProbe> OpenGpuThrottleProbe(
    const absl::StatusOr<transport::NvmlThrottleFunctions>& functions,
    const std::string& pci_bus_id) {
  constexpr char kNoSample[] = "GPU throttle counters are not recorded";
  if (!functions.ok()) {
    spdlog::warn("{}: {}", kNoSample, functions.status().ToString());
    return nullptr;
  }
  if (pci_bus_id.empty()) {
    spdlog::warn("{}: the agent assigned no GPU PCI bus id", kNoSample);
    return nullptr;
  }
  absl::StatusOr<std::unique_ptr<transport::NvmlGpuReader>> reader =
      transport::NvmlGpuReader::Open(*functions, pci_bus_id);
  if (!reader.ok()) {
    spdlog::warn("{} for GPU {}: {}", kNoSample, pci_bus_id, reader.status().ToString());
    return nullptr;
  }
  std::shared_ptr<transport::NvmlGpuReader> shared = *std::move(reader);
  return std::make_unique<transport::ReadingGpuThrottleProbe>(
      [shared] { return shared->Read(); },
      [pci_bus_id](const absl::Status& status) {
        spdlog::warn(
            "GPU {} throttle counters unreadable (no sample for this batch; warned once): "
            "{}",
            pci_bus_id, status.ToString());
      });
}

}  // namespace eb::worker
