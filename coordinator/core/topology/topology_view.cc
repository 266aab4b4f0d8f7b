#include "coordinator/core/topology/topology_view.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

topology::InventoryNode InventoryNodeOf(const std::string& name,
                                        const v1::NodeInventory& inventory) {
  topology::InventoryNode node;
  node.name = name;
  for (const v1::HcaInfo& hca : inventory.hcas()) {
    node.hcas.push_back(topology::HcaName(hca.name(), hca.port()));
  }
  // A node without HCAs (Gloo over TCP, a socket fleet) sends over its
  // bootstrap interface: that is the NIC a topology cables ("eth0").
  if (node.hcas.empty() && !inventory.bootstrap_interface().empty()) {
    node.hcas.push_back(inventory.bootstrap_interface());
  }
  return node;
}

v1::GetTopologyReply TopologyReply(const topology::FabricSource* loaded, const std::string& file,
                                   const std::vector<topology::InventoryNode>& fleet) {
  v1::GetTopologyReply reply;
  if (loaded == nullptr) return reply;
  const topology::Fabric& fabric = loaded->fabric;
  reply.set_loaded(true);
  reply.set_file(file);
  reply.set_format(loaded->format);

  // A switch with a node cable is a leaf; one only at the top of uplinks a
  // spine (CheckFabric refused a switch that is both).
  std::set<std::string> leaves;
  std::set<std::string> spines;
  for (const topology::Cable& cable : fabric.cables) leaves.insert(cable.leaf);
  for (const topology::Uplink& uplink : fabric.uplinks) {
    leaves.insert(uplink.leaf);
    spines.insert(uplink.spine);
  }
  for (const auto& [names, role] : {std::pair{&leaves, "leaf"}, std::pair{&spines, "spine"}}) {
    for (const std::string& name : *names) {
      v1::TopologySwitch& out = *reply.add_switches();
      out.set_name(name);
      out.set_role(role);
      if (auto guid = fabric.switch_guids.find(name); guid != fabric.switch_guids.end()) {
        out.set_guid(guid->second);
      }
    }
  }

  std::vector<const topology::Cable*> cables;
  for (const topology::Cable& cable : fabric.cables) cables.push_back(&cable);
  std::sort(cables.begin(), cables.end(), [](const topology::Cable* a, const topology::Cable* b) {
    return std::tie(a->node, a->rail) < std::tie(b->node, b->rail);
  });
  for (const topology::Cable* cable : cables) {
    v1::TopologyCable& out = *reply.add_cables();
    out.set_node(cable->node);
    out.set_hca(cable->hca);
    out.set_rail(cable->rail);
    out.set_leaf(cable->leaf);
    out.set_leaf_port(cable->leaf_port);
  }
  std::vector<const topology::Uplink*> uplinks;
  for (const topology::Uplink& uplink : fabric.uplinks) uplinks.push_back(&uplink);
  std::sort(uplinks.begin(), uplinks.end(),
            [](const topology::Uplink* a, const topology::Uplink* b) {
              return std::tie(a->leaf, a->leaf_port) < std::tie(b->leaf, b->leaf_port);
            });
  for (const topology::Uplink* uplink : uplinks) {
    v1::TopologyUplink& out = *reply.add_uplinks();
    out.set_leaf(uplink->leaf);
    out.set_leaf_port(uplink->leaf_port);
    out.set_spine(uplink->spine);
    out.set_spine_port(uplink->spine_port);
  }

  const topology::InventoryMismatch mismatch = topology::CompareWithInventory(fabric, fleet);
  for (const std::string& node : mismatch.nodes_not_in_fleet) reply.add_nodes_not_in_fleet(node);
  for (const std::string& node : mismatch.nodes_not_in_topology) {
    reply.add_nodes_not_in_topology(node);
  }
  for (const auto& [node, hca] : mismatch.hcas_not_in_fleet) {
    v1::NodeHca& out = *reply.add_hcas_not_in_fleet();
    out.set_node(node);
    out.set_hca(hca);
  }
  for (const auto& [node, hca] : mismatch.hcas_not_in_topology) {
    v1::NodeHca& out = *reply.add_hcas_not_in_topology();
    out.set_node(node);
    out.set_hca(hca);
  }
  return reply;
}

}  // namespace eb::coordinator
