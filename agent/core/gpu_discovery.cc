#include "agent/core/gpu_discovery.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/gpu/pci_bus_id.h"

namespace eb::agent {

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

DiscoveredGpus AddGpuDetails(std::vector<ebnccl::v1::GpuInfo> gpus, GpuDetailsSource& nvml) {
  DiscoveredGpus found;
  found.gpus = std::move(gpus);
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

}  // namespace eb::agent
