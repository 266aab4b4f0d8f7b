#include "agent/host/nvidia_driver.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/gpu/pci_bus_id.h"
#include "common/io/bounded_file.h"

namespace eb::agent {

std::vector<ebnccl::v1::GpuInfo> DiscoverGpus(absl::string_view proc_root) {
  std::vector<ebnccl::v1::GpuInfo> gpus;
  std::error_code error;
  std::vector<std::filesystem::path> dirs;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(proc_root), error)) {
    if (entry.is_directory(error)) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const std::filesystem::path& dir : dirs) {
    ebnccl::v1::GpuInfo gpu;
    gpu.set_index(static_cast<int>(gpus.size()));
    gpu.set_pci_bus_id(dir.filename().string());
    // Unreadable (or not a regular file): the GPU is listed by its folder.
    const std::string information =
        common::ReadBoundedFile((dir / "information").string(), common::FileKind::kProcTable)
            .value_or("");
    for (absl::string_view line : absl::StrSplit(information, '\n')) {
      absl::string_view view(line);
      if (absl::ConsumePrefix(&view, "Model:")) {
        gpu.set_name(std::string(absl::StripAsciiWhitespace(view)));
      } else if (absl::ConsumePrefix(&view, "Bus Location:")) {
        gpu.set_pci_bus_id(std::string(absl::StripAsciiWhitespace(view)));
      }
    }
    gpu.set_pci_bus_id(common::CanonicalPciBusId(gpu.pci_bus_id()));
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

DiscoveredGpus DiscoverGpusWithDetails(GpuDetailsSource& nvml, absl::string_view proc_root) {
  return AddGpuDetails(DiscoverGpus(proc_root), nvml);
}

std::vector<ebnccl::v1::GpuInfo> OwnedGpus(const std::vector<int>& gpu_indices) {
  return SelectGpus(DiscoverGpus(), gpu_indices);
}

std::string DriverVersion(absl::string_view version_file) {
  absl::StatusOr<std::string> first =
      common::ReadFirstLine(std::string(version_file), common::kMaxProcTableFileBytes);
  if (!first.ok() || first->empty()) return "";
  const std::string& line = *first;
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul ...":
  // the first word after "Kernel Module" (or in the line) shaped like N.N[.N].
  const size_t module = line.find("Kernel Module");
  const std::string tail = module == std::string::npos ? line : line.substr(module);
  for (absl::string_view word : absl::StrSplit(tail, ' ', absl::SkipEmpty())) {
    std::vector<absl::string_view> parts = absl::StrSplit(word, '.');
    if (parts.size() < 2 || parts.size() > 3) continue;
    bool numeric = true;
    for (absl::string_view part : parts) {
      numeric &= !part.empty() && part.find_first_not_of("0123456789") == absl::string_view::npos;
    }
    if (numeric) return std::string(word);
  }
  return "";
}

}  // namespace eb::agent
