#include "coordinator/validation/inventory_facts.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/validation/pcie_links.h"

namespace eb::validation {
namespace v1 = ebnccl::v1;
namespace {

// The distinct non-empty values of a node's devices, sorted and joined: a
// node with two GPU models has the value "a,b", which differs from both.
std::string FactDistinct(std::set<std::string> values) {
  values.erase("");
  return absl::StrJoin(values, ",");
}

std::string FactNcclVersion(const v1::NodeInventory& inventory) { return inventory.nccl_version(); }

std::string FactDriver(const v1::NodeInventory& inventory) { return inventory.driver_version(); }

std::string FactGpuModels(const v1::NodeInventory& inventory) {
  std::set<std::string> names;
  for (const v1::GpuInfo& gpu : inventory.gpus()) names.insert(gpu.name());
  return FactDistinct(names);
}

std::string FactGpuCount(const v1::NodeInventory& inventory) {
  return absl::StrCat(inventory.gpus_size());
}

// Per GPU, 0 when unknown (no NVML).
std::string FactGpuMemory(const v1::NodeInventory& inventory) {
  std::set<std::string> sizes;
  for (const v1::GpuInfo& gpu : inventory.gpus()) {
    if (gpu.memory_bytes() > 0) {
      sizes.insert(absl::StrFormat("%.1f GiB", gpu.memory_bytes() / double{1 << 30}));
    }
  }
  return FactDistinct(sizes);
}

std::string FactHcaPorts(const v1::NodeInventory& inventory) {
  std::vector<std::string> ports;
  for (const v1::HcaInfo& hca : inventory.hcas()) ports.push_back(HcaPortName(hca));
  std::sort(ports.begin(), ports.end());
  return absl::StrJoin(ports, ",");
}

// sysfs writes "4: ACTIVE"; an agent may pass either form.
std::string FactPortState(const v1::HcaInfo& hca) {
  absl::string_view state = hca.state();
  const size_t colon = state.find(':');
  if (colon != absl::string_view::npos) state.remove_prefix(colon + 1);
  return absl::AsciiStrToUpper(absl::StripAsciiWhitespace(state));
}

std::string FactLinkLayer(const v1::HcaInfo& hca) { return hca.link_layer(); }

std::string FactLinkRate(const v1::HcaInfo& hca) {
  return hca.rate_gbps() > 0 ? absl::StrCat(hca.rate_gbps(), " Gb/s") : "";
}

// The HCA's firmware (<hca>/fw_ver), read per port: an mlx5 device has one
// port, and the inventory lists ports.
std::string FactFirmware(const v1::HcaInfo& hca) { return hca.fw_ver(); }

// The current PCIe link's width ("x16") and speed ("32.0 GT/s"), compared
// apart: each is unknown on its own, and a GPU's speed is unknown while it
// may be saving power (pcie_links.h). A link below its own maximum is
// judged apart too (pcie_links.h, TrainedDownLinks).
std::string FactHcaPcieWidth(const v1::HcaInfo& hca) { return CurrentPcieWidth(hca.pcie_link()); }

std::string FactHcaPcieSpeed(const v1::HcaInfo& hca) {
  return CurrentPcieSpeed(hca.pcie_link(), LinkOwner::kHca);
}

std::string FactGpuPcieWidth(const v1::GpuInfo& gpu) { return CurrentPcieWidth(gpu.pcie_link()); }

std::string FactGpuPcieSpeed(const v1::GpuInfo& gpu) {
  return CurrentPcieSpeed(gpu.pcie_link(), LinkOwner::kGpu);
}

// The port's lanes, "4X" (from its rate file); 0 when unknown.
std::string FactLinkWidth(const v1::HcaInfo& hca) {
  return hca.link_width() > 0 ? absl::StrCat(hca.link_width(), "X") : "";
}

// Which HCA is nearest to the GPU and why: "mlx5_3 (same PCIe switch)",
// "none"; unknown when the agent did not read the topology. A NIC under
// another switch, or two GPUs' NICs swapped, differ here.
std::string FactNearestHca(const v1::GpuInfo& gpu) {
  if (gpu.hca_affinity().empty()) return "";
  if (gpu.nearest_hca().empty()) return gpu.hca_affinity();
  return absl::StrCat(gpu.nearest_hca(), " (", gpu.hca_affinity(), ")");
}

std::string FactBootstrapInterface(const v1::NodeInventory& inventory) {
  return inventory.bootstrap_interface();
}

// The MTU of the interface the workers bootstrap (and Gloo runs) on.
std::string FactBootstrapMtu(const v1::NodeInventory& inventory) {
  if (inventory.bootstrap_interface().empty()) return "";
  for (const v1::NetworkInterface& iface : inventory.interfaces()) {
    if (iface.name() == inventory.bootstrap_interface() && iface.mtu_bytes() > 0) {
      return absl::StrCat(iface.mtu_bytes());
    }
  }
  return "";
}

constexpr const char* kEmptyIsUnknown = nullptr;
constexpr const char* kEmptyIsNone = "(none)";
constexpr FactUse kPreflightOnly = FactUse::kPreflightOnly;
constexpr FactUse kAlsoRunTest = FactUse::kAlsoRunTest;

}  // namespace

std::string HcaPortName(const v1::HcaInfo& hca) {
  return absl::StrCat(hca.name(), ":", hca.port());
}

const std::vector<InventoryFact>& InventoryFacts() {
  // Empty values follow common.proto. NCCL version is empty without NCCL,
  // GPU model without GPUs, HCA ports without ports: a value, "(none)".
  // Memory, firmware, rate, link layer and MTU are empty or 0 when they
  // could not be read: unknown. So is the driver: without GPUs the GPU
  // model already differs, and with GPUs an empty version was not readable.
  // A port that could not be read at all (HcaInfo.error) has no state:
  // "(none)" differs.
  static const auto* const kFacts = new std::vector<InventoryFact>{
      // name, how it is read, what empty means, who judges it
      {"NCCL version", NodeFactReader{FactNcclVersion}, kEmptyIsNone, kAlsoRunTest},
      {"CUDA driver", NodeFactReader{FactDriver}, kEmptyIsUnknown, kAlsoRunTest},
      {"GPU model", NodeFactReader{FactGpuModels}, kEmptyIsNone, kAlsoRunTest},
      {"GPU count", NodeFactReader{FactGpuCount}, kEmptyIsNone, kPreflightOnly},
      {"GPU memory", NodeFactReader{FactGpuMemory}, kEmptyIsUnknown, kPreflightOnly},
      // The set of configured ports: a node missing one (or with another)
      // differs here; the facts of each port compare only the nodes that
      // have it.
      {"HCA ports", NodeFactReader{FactHcaPorts}, kEmptyIsNone, kAlsoRunTest},
      {"state", HcaPortFactReader{FactPortState}, kEmptyIsNone, kAlsoRunTest},
      {"link layer", HcaPortFactReader{FactLinkLayer}, kEmptyIsUnknown, kAlsoRunTest},
      {"link rate", HcaPortFactReader{FactLinkRate}, kEmptyIsUnknown, kAlsoRunTest},
      {"firmware", HcaPortFactReader{FactFirmware}, kEmptyIsUnknown, kAlsoRunTest},
      // Links that run slower or narrower than the fleet's are judged by
      // preflight only: a test across them still runs (nothing hangs) and
      // measures what they carry, which is the evidence the operator
      // needs; refusing it would hide that. A GPU's link speed also moves
      // with its power state. The port's rate, which a narrower port
      // lowers too, refuses a run-test above. The nearest HCA (a NIC under
      // another switch, swapped NICs) slows a rail without breaking it.
      {"link width", HcaPortFactReader{FactLinkWidth}, kEmptyIsUnknown, kPreflightOnly},
      {"PCIe link width", HcaPortFactReader{FactHcaPcieWidth}, kEmptyIsUnknown, kPreflightOnly},
      {"PCIe link speed", HcaPortFactReader{FactHcaPcieSpeed}, kEmptyIsUnknown, kPreflightOnly},
      {"PCIe link width", GpuFactReader{FactGpuPcieWidth}, kEmptyIsUnknown, kPreflightOnly},
      {"PCIe link speed", GpuFactReader{FactGpuPcieSpeed}, kEmptyIsUnknown, kPreflightOnly},
      {"nearest HCA", GpuFactReader{FactNearestHca}, kEmptyIsUnknown, kPreflightOnly},
      {"bootstrap interface", NodeFactReader{FactBootstrapInterface}, "(any)", kPreflightOnly},
      {"bootstrap interface MTU", NodeFactReader{FactBootstrapMtu}, kEmptyIsUnknown, kAlsoRunTest},
  };
  return *kFacts;
}

std::vector<InventoryFact> RunTestFacts() {
  std::vector<InventoryFact> facts;
  for (const InventoryFact& fact : InventoryFacts()) {
    if (fact.use == FactUse::kAlsoRunTest) facts.push_back(fact);
  }
  return facts;
}

}  // namespace eb::validation
