#include "agent/core/gpu_discovery.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/gpu/pci_bus_id.h"

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
    std::ifstream in(dir / "information");
    std::string line;
    while (std::getline(in, line)) {
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

std::vector<std::string> ApplyNvmlDetails(const NvmlReport& report,
                                          std::vector<ebnccl::v1::GpuInfo>* gpus) {
  std::vector<std::string> notes = report.problems;
  std::vector<bool> matched(report.gpus.size(), false);
  for (ebnccl::v1::GpuInfo& gpu : *gpus) {
    const std::string bus_id = common::CanonicalPciBusId(gpu.pci_bus_id());
    bool found = false;
    for (size_t i = 0; i < report.gpus.size() && !found; ++i) {
      const NvmlGpu& details = report.gpus[i];
      if (matched[i] || common::CanonicalPciBusId(details.pci_bus_id) != bus_id) continue;
      matched[i] = found = true;
      if (!details.name.empty()) gpu.set_name(details.name);
      gpu.set_memory_bytes(details.memory_bytes);
    }
    if (!found) {
      notes.push_back(absl::StrCat("NVML does not describe GPU ", gpu.index(), " (", bus_id, ")"));
    }
  }
  for (size_t i = 0; i < report.gpus.size(); ++i) {
    if (!matched[i]) {
      notes.push_back(absl::StrCat("NVML lists GPU ", report.gpus[i].pci_bus_id,
                                   ", which the driver's /proc list does not"));
    }
  }
  return notes;
}

DiscoveredGpus DiscoverGpusWithDetails(GpuDetailsSource& nvml, absl::string_view proc_root) {
  DiscoveredGpus found;
  found.gpus = DiscoverGpus(proc_root);
  if (found.gpus.empty()) return found;
  absl::StatusOr<NvmlReport> report = nvml.Query();
  if (!report.ok()) {
    found.nvml_note = absl::StrCat("GPU memory unknown: ", report.status().message());
    return found;
  }
  const std::vector<std::string> notes = ApplyNvmlDetails(*report, &found.gpus);
  if (!notes.empty()) found.nvml_note = absl::StrJoin(notes, "; ");
  return found;
}

std::vector<ebnccl::v1::GpuInfo> SelectGpus(const std::vector<ebnccl::v1::GpuInfo>& all,
                                            const std::vector<int>& gpu_indices) {
  if (gpu_indices.empty()) return all;
  std::vector<ebnccl::v1::GpuInfo> owned;
  for (int index : gpu_indices) {
    if (index >= 0 && index < static_cast<int>(all.size())) owned.push_back(all[index]);
  }
  return owned;
}

absl::Status CheckGpuIndices(const std::vector<int>& gpu_indices, size_t host_gpus) {
  for (int index : gpu_indices) {
    if (index < 0 || index >= static_cast<int>(host_gpus)) {
      return absl::InvalidArgumentError(
          absl::StrCat("GPU ", index, " does not exist (this host has ", host_gpus, ")"));
    }
  }
  return absl::OkStatus();
}

std::vector<ebnccl::v1::GpuInfo> OwnedGpus(const std::vector<int>& gpu_indices) {
  return SelectGpus(DiscoverGpus(), gpu_indices);
}

std::string DriverVersion(absl::string_view version_file) {
  std::ifstream in{std::string(version_file)};
  std::string line;
  if (!std::getline(in, line)) return "";
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
