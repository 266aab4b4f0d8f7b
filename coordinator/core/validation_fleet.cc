#include "coordinator/core/validation_fleet.h"

#include <string>

#include "coordinator/core/collective_tests/transport_selection.h"

namespace eb::coordinator {

namespace v1 = ebnccl::v1;

validation::Node NodeFromRecord(const NodeRecord& record, const topology::Fabric* fabric) {
  validation::Node node = validation::NodeFromInventory(record.name, record.inventory);
  node.reachable = record.state != v1::NODE_STATE_LOST;
  if (fabric != nullptr) {
    // A linear scan per node: a validation selects its nodes once.
    int rail = -1;
    for (const topology::Cable& cable : fabric->cables) {
      if (cable.node != record.name || (rail >= 0 && cable.rail >= rail)) continue;
      rail = cable.rail;
      node.leaf = cable.leaf;
    }
  }
  return node;
}

bool FleetRunsNccl(NodeRegistry& registry, v1::Transport requested,
                   const std::vector<validation::Node>& nodes) {
  std::vector<std::string> names;
  std::vector<v1::NodeInventory> inventories;
  for (const validation::Node& node : nodes) {
    const NodeRecord* record = registry.Find(node.name);
    if (record == nullptr || record->state == v1::NODE_STATE_LOST) continue;
    names.push_back(node.name);
    inventories.push_back(record->inventory);
  }
  absl::StatusOr<v1::Transport> transport = SelectTransport(requested, names, inventories);
  return transport.ok() && *transport == v1::TRANSPORT_NCCL;
}

}  // namespace eb::coordinator
