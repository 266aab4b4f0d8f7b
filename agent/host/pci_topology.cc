#include "agent/host/pci_topology.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "agent/core/pcie_link.h"
#include "agent/host/sysfs_file.h"
#include "common/gpu/pci_bus_id.h"

namespace eb::agent {
namespace fs = std::filesystem;

ebnccl::v1::PcieLink ReadPcieLink(const std::string& dir) {
  auto read = [&dir](const char* name) { return ReadSysfsValue(absl::StrCat(dir, "/", name)); };
  return PcieLinkFromFiles({dir, read("current_link_speed"), read("current_link_width"),
                            read("max_link_speed"), read("max_link_width")});
}

PciDevice ReadPciDevice(const std::string& link, const std::string& name) {
  PciDevice device;
  device.name = name;
  std::error_code error;
  const fs::path real = fs::canonical(link, error);
  if (error) return device;
  // Every component that is a PCI address is a function on the way down;
  // the last one is the device itself.
  std::vector<std::string> functions;
  for (const fs::path& part : real) {
    absl::StatusOr<std::string> bus = common::NormalizePciBusId(part.string());
    // "pci0000:00" (the root complex) is not a function.
    if (bus.ok() && part.string().find(':') != std::string::npos &&
        part.string().rfind("pci", 0) != 0) {
      functions.push_back(*bus);
    }
  }
  if (functions.empty()) return device;
  device.bus_id = functions.back();
  functions.pop_back();
  device.bridges = std::move(functions);
  int numa = -1;
  if (absl::SimpleAtoi(ReadSysfsValueOrEmpty((real / "numa_node").string()), &numa) && numa >= 0) {
    device.numa_node = numa;
  }
  device.pcie_link = ReadPcieLink(real.string());
  return device;
}

PciTopology ReadPciTopology(const std::string& pci_root, const std::string& infiniband_root,
                            const std::vector<std::string>& gpu_bus_ids,
                            const std::vector<std::string>& hca_names) {
  PciTopology topology;
  for (const std::string& bus : gpu_bus_ids) {
    PciDevice gpu =
        ReadPciDevice((fs::path(pci_root) / common::CanonicalPciBusId(bus)).string(), bus);
    // A GPU sysfs cannot place keeps its id, so that its answer is "none".
    if (gpu.bus_id.empty()) gpu.bus_id = common::CanonicalPciBusId(bus);
    topology.gpus.push_back(std::move(gpu));
  }
  for (const std::string& hca : hca_names) {
    topology.hcas.push_back(
        ReadPciDevice((fs::path(infiniband_root) / hca / "device").string(), hca));
  }
  return topology;
}

std::vector<std::string> AffinityHcaNames(const AgentCoreConfig& config) {
  std::vector<std::string> names;
  for (const HcaPort& hca : config.ib_hcas) {
    if (std::find(names.begin(), names.end(), hca.name) == names.end()) names.push_back(hca.name);
  }
  if (!names.empty()) return names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(config.sysfs_infiniband, error)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace eb::agent
