#include "coordinator/validation/pcie_links.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace eb::validation {
namespace v1 = ebnccl::v1;
namespace {

// The speed's number as written ("16.0"), "" when it is not "<n> GT/s".
std::string SpeedNumber(const std::string& speed) {
  const std::vector<std::string> words = absl::StrSplit(speed, ' ', absl::SkipEmpty());
  double gts = 0;
  // Digits and a point only, and short: an agent's text is input ("nan",
  // "1e9", a megabyte of digits).
  if (words.size() < 2 || words[1] != "GT/s" || words[0].size() > 8 ||
      words[0].find_first_not_of("0123456789.") != std::string::npos ||
      !absl::SimpleAtod(words[0], &gts) || gts <= 0) {
    return "";
  }
  return words[0];
}

bool Below(uint32_t current, uint32_t max) { return current > 0 && max > 0 && current < max; }

bool Below(const std::string& current, const std::string& max) {
  const double now = PcieSpeedGts(current), most = PcieSpeedGts(max);
  return now > 0 && most > 0 && now < most;
}

// The first generation's speed, to which an idle GPU drops.
constexpr double kGen1Gts = 2.5;

// The line for a device whose link trained down, or "" when it did not.
std::string TrainedDown(const std::string& device, const v1::PcieLink& link, LinkOwner owner) {
  const bool slower =
      !MaybePowerSaving(link, owner) && Below(link.current_speed(), link.max_speed());
  if (!Below(link.current_width(), link.max_width()) && !slower) return "";
  return absl::StrCat(device, " PCIe link ",
                      PcieLinkText(link.current_width(), link.current_speed()), ", capable of ",
                      PcieLinkText(link.max_width(), link.max_speed()));
}

// "GPU 3 (0000:1b:00.0)", "HCA mlx5_3"; the bus id only when known.
std::string DeviceName(const std::string& kind, const std::string& name, const std::string& bus) {
  return bus.empty() ? absl::StrCat(kind, " ", name)
                     : absl::StrCat(kind, " ", name, " (", bus, ")");
}

}  // namespace

double PcieSpeedGts(const std::string& speed) {
  double gts = 0;
  const std::string number = SpeedNumber(speed);
  return !number.empty() && absl::SimpleAtod(number, &gts) ? gts : 0;
}

std::string PcieLinkText(uint32_t width_lanes, const std::string& speed) {
  std::string text = width_lanes > 0 ? absl::StrCat("x", width_lanes) : "";
  const std::string number = SpeedNumber(speed);
  if (!number.empty()) absl::StrAppend(&text, text.empty() ? "" : " ", number, " GT/s");
  return text;
}

bool MaybePowerSaving(const v1::PcieLink& link, LinkOwner owner) {
  return owner == LinkOwner::kGpu && PcieSpeedGts(link.current_speed()) == kGen1Gts &&
         PcieSpeedGts(link.max_speed()) > kGen1Gts;
}

std::string CurrentPcieWidth(const v1::PcieLink& link) {
  return PcieLinkText(link.current_width(), "");
}

std::string CurrentPcieSpeed(const v1::PcieLink& link, LinkOwner owner) {
  return MaybePowerSaving(link, owner) ? "" : PcieLinkText(0, link.current_speed());
}

std::vector<std::string> TrainedDownLinks(const v1::NodeInventory& inventory) {
  std::vector<std::string> lines;
  std::vector<const v1::GpuInfo*> gpus;
  for (const v1::GpuInfo& gpu : inventory.gpus()) gpus.push_back(&gpu);
  std::stable_sort(gpus.begin(), gpus.end(), [](const v1::GpuInfo* a, const v1::GpuInfo* b) {
    return a->index() < b->index();
  });
  for (const v1::GpuInfo* gpu : gpus) {
    std::string line = TrainedDown(DeviceName("GPU", absl::StrCat(gpu->index()), gpu->pci_bus_id()),
                                   gpu->pcie_link(), LinkOwner::kGpu);
    if (!line.empty()) lines.push_back(std::move(line));
  }
  std::set<std::string> seen;  // an HCA's ports share its PCI device
  for (const v1::HcaInfo& hca : inventory.hcas()) {
    if (!seen.insert(hca.name()).second) continue;
    std::string line = TrainedDown(DeviceName("HCA", hca.name(), hca.pci_bus_id()), hca.pcie_link(),
                                   LinkOwner::kHca);
    if (!line.empty()) lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace eb::validation
