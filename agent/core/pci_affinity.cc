#include "agent/core/pci_affinity.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "common/gpu/pci_bus_id.h"

namespace eb::agent {
namespace {

size_t CommonBridges(const PciDevice& a, const PciDevice& b) {
  size_t common = 0;
  while (common < a.bridges.size() && common < b.bridges.size() &&
         a.bridges[common] == b.bridges[common]) {
    ++common;
  }
  return common;
}

// "mlx5_2" < "mlx5_10": digit runs compare by value.
bool NaturalLess(const std::string& a, const std::string& b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t i_end = i;
      size_t j_end = j;
      while (i_end < a.size() && std::isdigit(static_cast<unsigned char>(a[i_end]))) ++i_end;
      while (j_end < b.size() && std::isdigit(static_cast<unsigned char>(b[j_end]))) ++j_end;
      const std::string x = a.substr(i, i_end - i);
      const std::string y = b.substr(j, j_end - j);
      // Equal values of different widths ("01", "1") fall through to length.
      const size_t x_digits =
          x.find_first_not_of('0') == std::string::npos ? 0 : x.size() - x.find_first_not_of('0');
      const size_t y_digits =
          y.find_first_not_of('0') == std::string::npos ? 0 : y.size() - y.find_first_not_of('0');
      if (x_digits != y_digits) return x_digits < y_digits;
      const std::string xs = x.substr(x.size() - x_digits);
      const std::string ys = y.substr(y.size() - y_digits);
      if (xs != ys) return xs < ys;
      i = i_end;
      j = j_end;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

}  // namespace

std::vector<GpuAffinity> ComputeAffinity(const PciTopology& topology) {
  std::vector<const PciDevice*> hcas;
  for (const PciDevice& hca : topology.hcas) hcas.push_back(&hca);
  std::stable_sort(hcas.begin(), hcas.end(), [](const PciDevice* a, const PciDevice* b) {
    return NaturalLess(a->name, b->name);
  });
  std::map<std::string, int> chosen;  // HCA -> GPUs that chose it
  std::vector<GpuAffinity> result;
  for (const PciDevice& gpu : topology.gpus) {
    GpuAffinity& answer = result.emplace_back();
    answer.gpu_bus_id = gpu.bus_id;
    answer.numa_node = gpu.numa_node;
    answer.reason = kAffinityNone;
    // Score: (bridges in common, same NUMA node); 0/false = unrelated.
    size_t best_bridges = 0;
    bool best_numa = false;
    const PciDevice* best = nullptr;
    for (const PciDevice* hca : hcas) {
      const size_t bridges = CommonBridges(gpu, *hca);
      const bool numa = gpu.numa_node >= 0 && gpu.numa_node == hca->numa_node;
      if (bridges == 0 && !numa) continue;
      const bool better =
          best == nullptr || bridges > best_bridges ||
          (bridges == best_bridges && numa && !best_numa) ||
          (bridges == best_bridges && numa == best_numa && chosen[hca->name] < chosen[best->name]);
      if (!better) continue;
      best = hca;
      best_bridges = bridges;
      best_numa = numa;
    }
    if (best == nullptr) continue;
    ++chosen[best->name];
    answer.hca = best->name;
    answer.reason = best_bridges > 0 ? kAffinitySwitch : kAffinityNuma;
  }
  return result;
}

void ApplyAffinity(const std::vector<GpuAffinity>& affinity,
                   std::vector<ebnccl::v1::GpuInfo>& gpus) {
  for (ebnccl::v1::GpuInfo& gpu : gpus) {
    const std::string bus = common::CanonicalPciBusId(gpu.pci_bus_id());
    gpu.set_numa_node(-1);
    for (const GpuAffinity& answer : affinity) {
      if (bus.empty() || common::CanonicalPciBusId(answer.gpu_bus_id) != bus) continue;
      gpu.set_nearest_hca(answer.hca);
      gpu.set_numa_node(answer.numa_node);
      gpu.set_hca_affinity(answer.reason);
      break;
    }
  }
}

}  // namespace eb::agent
