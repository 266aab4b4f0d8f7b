#pragma once

// What the topology and the agents' inventories disagree on: a node or HCA
// cabled in the topology that no agent reports, and the reverse. `ebctl
// topology` shows it; a mismatch is not an error (a node may be down, a
// topology file stale), but the nodes and HCAs it names are not localized
// on links. Pure.

#include <string>
#include <utility>
#include <vector>

#include "coordinator/topology/fabric.h"

namespace eb::topology {

// What one agent reports, reduced to what the topology can name.
struct InventoryNode {
  std::string name;
  // Its HCA ports as the topology names them: "mlx5_0" for port 1,
  // "mlx5_0/2" for another port (HcaName).
  std::vector<std::string> hcas;
};

std::string HcaName(const std::string& device, int port);

using NodeHca = std::pair<std::string, std::string>;  // node, HCA

struct InventoryMismatch {
  std::vector<std::string> nodes_not_in_fleet;     // cabled, but no agent has that name
  std::vector<std::string> nodes_not_in_topology;  // an agent, but no cable
  std::vector<NodeHca> hcas_not_in_fleet;          // cabled; its node's agent lacks the HCA
  std::vector<NodeHca> hcas_not_in_topology;       // reported; the topology has no cable for it
  bool empty() const {
    return nodes_not_in_fleet.empty() && nodes_not_in_topology.empty() &&
           hcas_not_in_fleet.empty() && hcas_not_in_topology.empty();
  }
};

// Each list sorted; HCAs are compared only for nodes in both.
InventoryMismatch CompareWithInventory(const Fabric& fabric,
                                       const std::vector<InventoryNode>& fleet);

}  // namespace eb::topology
