#include "agent/host/system_nvml.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"

namespace eb::agent {
namespace {

constexpr char kLibrary[] = "libnvidia-ml.so.1";

class DlopenNvml final : public GpuDetailsSource {
 public:
  absl::StatusOr<NvmlReport> Query() override {
    std::call_once(load_once_, [this] { Load(); });
    if (!load_error_.empty()) return absl::UnavailableError(load_error_);
    std::lock_guard<std::mutex> lock(query_mu_);
    return QueryNvml(functions_);
  }

 private:
  template <typename Function>
  bool Bind(void* library, const char* symbol, Function* out) {
    void* address = dlsym(library, symbol);
    if (address == nullptr) {
      load_error_ = absl::StrCat(kLibrary, " has no ", symbol, " (driver too old?)");
      return false;
    }
    *out = reinterpret_cast<Function>(address);
    return true;
  }

  void Load() {
    // RTLD_LOCAL: NVML's symbols stay out of the agent's namespace. The
    // handle is never closed (see SystemNvml).
    void* library = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* error = dlerror();
      load_error_ =
          absl::StrCat(kLibrary, " cannot be loaded (", error != nullptr ? error : "?", ")");
      return;
    }
    const bool bound = Bind(library, "nvmlInit_v2", &functions_.init) &&
                       Bind(library, "nvmlShutdown", &functions_.shutdown) &&
                       Bind(library, "nvmlDeviceGetCount_v2", &functions_.get_count) &&
                       Bind(library, "nvmlDeviceGetHandleByIndex_v2", &functions_.get_handle) &&
                       Bind(library, "nvmlDeviceGetName", &functions_.get_name) &&
                       Bind(library, "nvmlDeviceGetPciInfo_v3", &functions_.get_pci_info) &&
                       Bind(library, "nvmlDeviceGetMemoryInfo", &functions_.get_memory);
    if (!bound) return;
    functions_.error_string =
        reinterpret_cast<const char* (*)(nvml::Return)>(dlsym(library, "nvmlErrorString"));
  }

  std::once_flag load_once_;
  NvmlFunctions functions_;
  std::string load_error_;  // written once, inside call_once
  // NVML's own state is process-wide and its calls are thread-safe, but
  // two overlapping Init/Shutdown pairs gain nothing: one query at a time.
  std::mutex query_mu_;
};

}  // namespace

GpuDetailsSource& SystemNvml() {
  // Never destroyed: the library stays loaded for the life of the process.
  static auto* nvml = new DlopenNvml();
  return *nvml;
}

}  // namespace eb::agent
