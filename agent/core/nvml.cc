#include "agent/core/nvml.h"

#include <cstring>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"

namespace eb::agent {
namespace {

std::string ErrorText(const NvmlFunctions& functions, nvml::Return code) {
  const char* text = functions.error_string != nullptr ? functions.error_string(code) : nullptr;
  return text != nullptr ? absl::StrCat(text, " (", code, ")") : absl::StrCat("error ", code);
}

// A C string from a fixed buffer that NVML may not have terminated.
std::string FromBuffer(const char* buffer, size_t size) {
  return std::string(buffer, strnlen(buffer, size));
}

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

}  // namespace eb::agent
