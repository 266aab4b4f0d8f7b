#include "coordinator/topology/inventory_match.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"

namespace eb::topology {

std::string HcaName(const std::string& device, int port) {
  return port == 1 ? device : absl::StrCat(device, "/", port);
}

InventoryMismatch CompareWithInventory(const Fabric& fabric,
                                       const std::vector<InventoryNode>& fleet) {
  std::map<std::string, std::set<std::string>> cabled;
  for (const Cable& cable : fabric.cables) cabled[cable.node].insert(cable.hca);
  std::map<std::string, std::set<std::string>> reported;
  for (const InventoryNode& node : fleet) {
    reported[node.name].insert(node.hcas.begin(), node.hcas.end());
  }
  InventoryMismatch out;
  for (const auto& [node, hcas] : cabled) {
    auto agent = reported.find(node);
    if (agent == reported.end()) {
      out.nodes_not_in_fleet.push_back(node);
      continue;
    }
    for (const std::string& hca : hcas) {
      if (agent->second.count(hca) == 0) out.hcas_not_in_fleet.emplace_back(node, hca);
    }
  }
  for (const auto& [node, hcas] : reported) {
    auto topology = cabled.find(node);
    if (topology == cabled.end()) {
      out.nodes_not_in_topology.push_back(node);
      continue;
    }
    for (const std::string& hca : hcas) {
      if (topology->second.count(hca) == 0) out.hcas_not_in_topology.emplace_back(node, hca);
    }
  }
  return out;
}

}  // namespace eb::topology
