#include "agent/core/nvml.h"

#include <dlfcn.h>

#include <cstring>
#include <mutex>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"

namespace eb::agent {
namespace {

constexpr char kLibrary[] = "libnvidia-ml.so.1";

std::string ErrorText(const NvmlFunctions& functions, nvml::Return code) {
  const char* text = functions.error_string != nullptr ? functions.error_string(code) : nullptr;
  return text != nullptr ? absl::StrCat(text, " (", code, ")") : absl::StrCat("error ", code);
}

// A C string from a fixed buffer that NVML may not have terminated.
std::string FromBuffer(const char* buffer, size_t size) {
  return std::string(buffer, strnlen(buffer, size));
}

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

absl::StatusOr<NvmlReport> QueryNvml(const NvmlFunctions& f) {
  if (const nvml::Return code = f.init(); code != nvml::kSuccess) {
    return absl::UnavailableError(absl::StrCat("nvmlInit_v2: ", ErrorText(f, code)));
  }
  absl::Cleanup shutdown = [&f] { (void)f.shutdown(); };
  unsigned int count = 0;
  if (const nvml::Return code = f.get_count(&count); code != nvml::kSuccess) {
    return absl::UnavailableError(absl::StrCat("nvmlDeviceGetCount_v2: ", ErrorText(f, code)));
  }
  NvmlReport report;
  for (unsigned int index = 0; index < count; ++index) {
    auto problem = [&](const char* call, nvml::Return code) {
      report.problems.push_back(
          absl::StrCat("NVML device ", index, ": ", call, ": ", ErrorText(f, code)));
    };
    nvml::Device device = nullptr;
    if (const nvml::Return code = f.get_handle(index, &device); code != nvml::kSuccess) {
      problem("nvmlDeviceGetHandleByIndex_v2", code);
      continue;
    }
    // The bus id is what matches a GPU to the driver's list: without it the
    // rest is useless.
    nvml::PciInfo pci{};
    if (const nvml::Return code = f.get_pci_info(device, &pci); code != nvml::kSuccess) {
      problem("nvmlDeviceGetPciInfo_v3", code);
      continue;
    }
    NvmlGpu gpu;
    gpu.pci_bus_id = FromBuffer(pci.bus_id, sizeof(pci.bus_id));
    char name[nvml::kNameBufferSize] = {};
    if (const nvml::Return code = f.get_name(device, name, sizeof(name)); code == nvml::kSuccess) {
      gpu.name = FromBuffer(name, sizeof(name));
    } else {
      problem("nvmlDeviceGetName", code);
    }
    nvml::Memory memory{};
    if (const nvml::Return code = f.get_memory(device, &memory); code == nvml::kSuccess) {
      gpu.memory_bytes = static_cast<int64_t>(memory.total);
    } else {
      problem("nvmlDeviceGetMemoryInfo", code);
    }
    report.gpus.push_back(std::move(gpu));
  }
  return report;
}

GpuDetailsSource& SystemNvml() {
  // Never destroyed: the library stays loaded for the life of the process.
  static auto* nvml = new DlopenNvml();
  return *nvml;
}

}  // namespace eb::agent
