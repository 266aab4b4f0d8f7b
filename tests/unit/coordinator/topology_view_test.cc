// `ebctl topology`'s reply (issue 31): the loaded fabric, switches by role,
// cables and uplinks sorted, and every disagreement with the agents'
// inventories named; nothing without a topology.
#include "coordinator/core/topology/topology_view.h"

#include <string>
#include <vector>

#include "coordinator/core/validation_fleet.h"
#include "coordinator/validation/pair_planner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::ElementsAre;

topology::FabricSource TwoLeaves() {
  topology::FabricSource source;
  source.format = "toml";
  source.fabric.cables = {{"n2", "mlx5_0", 0, "leaf-b", 1},
                          {"n1", "mlx5_1", 1, "leaf-b", 2},
                          {"n1", "mlx5_0", 0, "leaf-a", 1}};
  source.fabric.uplinks = {{"leaf-b", 33, "spine-1", 2}, {"leaf-a", 33, "spine-1", 1}};
  source.fabric.switch_guids = {{"spine-1", "0x7cfe900300a5b000"}};
  return source;
}

TEST(TopologyView, WithoutATopologyNothingIsLoaded) {
  const v1::GetTopologyReply reply = TopologyReply(nullptr, "", {{"n1", {"mlx5_0"}}});
  EXPECT_FALSE(reply.loaded());
  EXPECT_EQ(reply.cables_size(), 0);
  EXPECT_EQ(reply.nodes_not_in_topology_size(), 0);  // no topology: nothing to disagree with
}

TEST(TopologyView, ShowsTheFabricSorted) {
  const topology::FabricSource source = TwoLeaves();
  const v1::GetTopologyReply reply = TopologyReply(
      &source, "/etc/ebnccl/fabric.toml", {{"n1", {"mlx5_0", "mlx5_1"}}, {"n2", {"mlx5_0"}}});
  EXPECT_TRUE(reply.loaded());
  EXPECT_EQ(reply.file(), "/etc/ebnccl/fabric.toml");
  EXPECT_EQ(reply.format(), "toml");
  std::vector<std::string> switches;
  for (const v1::TopologySwitch& sw : reply.switches()) {
    switches.push_back(sw.name() + " " + sw.role() + " " + sw.guid());
  }
  EXPECT_THAT(switches,
              ElementsAre("leaf-a leaf ", "leaf-b leaf ", "spine-1 spine 0x7cfe900300a5b000"));
  ASSERT_EQ(reply.cables_size(), 3);
  EXPECT_EQ(reply.cables(0).node() + reply.cables(0).hca(), "n1mlx5_0");
  EXPECT_EQ(reply.cables(1).node() + reply.cables(1).hca(), "n1mlx5_1");
  EXPECT_EQ(reply.cables(1).rail(), 1);
  EXPECT_EQ(reply.cables(2).node(), "n2");
  ASSERT_EQ(reply.uplinks_size(), 2);
  EXPECT_EQ(reply.uplinks(0).leaf(), "leaf-a");
  EXPECT_EQ(reply.uplinks(0).spine_port(), 1);
  // The agents agree with the map.
  EXPECT_EQ(reply.nodes_not_in_fleet_size() + reply.nodes_not_in_topology_size() +
                reply.hcas_not_in_fleet_size() + reply.hcas_not_in_topology_size(),
            0);
}

TEST(TopologyView, NamesWhatTheInventoriesAndTheTopologyLack) {
  const topology::FabricSource source = TwoLeaves();
  v1::NodeInventory n1;
  v1::HcaInfo& port1 = *n1.add_hcas();
  port1.set_name("mlx5_0");
  port1.set_port(1);
  v1::HcaInfo& port2 = *n1.add_hcas();
  port2.set_name("mlx5_0");
  port2.set_port(2);  // the topology names it "mlx5_0/2" and has no cable for it
  const topology::InventoryNode agent = InventoryNodeOf("n1", n1);
  EXPECT_THAT(agent.hcas, ElementsAre("mlx5_0", "mlx5_0/2"));

  const v1::GetTopologyReply reply =
      TopologyReply(&source, "fabric.toml", {agent, {"n3", {"mlx5_0"}}});
  EXPECT_THAT(reply.nodes_not_in_fleet(), ElementsAre("n2"));
  EXPECT_THAT(reply.nodes_not_in_topology(), ElementsAre("n3"));
  ASSERT_EQ(reply.hcas_not_in_fleet_size(), 1);
  EXPECT_EQ(reply.hcas_not_in_fleet(0).node(), "n1");
  EXPECT_EQ(reply.hcas_not_in_fleet(0).hca(), "mlx5_1");
  ASSERT_EQ(reply.hcas_not_in_topology_size(), 1);
  EXPECT_EQ(reply.hcas_not_in_topology(0).hca(), "mlx5_0/2");
}

// A Gloo host reports no HCA: its one NIC is its bootstrap interface, so a
// topology that cables eth0 matches it (the netns links e2e's fleet). A
// node with HCAs is named by them, whatever its bootstrap interface.
TEST(TopologyView, ANodeWithoutHcasIsNamedByItsBootstrapInterface) {
  v1::NodeInventory gloo;
  gloo.set_bootstrap_interface("eth0");
  EXPECT_THAT(InventoryNodeOf("h1", gloo).hcas, ElementsAre("eth0"));
  v1::NodeInventory any_interface;
  EXPECT_TRUE(InventoryNodeOf("h1", any_interface).hcas.empty());
  v1::NodeInventory rdma = gloo;
  rdma.add_hcas()->set_name("mlx5_0");
  rdma.mutable_hcas(0)->set_port(1);
  EXPECT_THAT(InventoryNodeOf("h1", rdma).hcas, ElementsAre("mlx5_0"));

  topology::FabricSource source;
  source.format = "toml";
  source.fabric.cables = {{"h1", "eth0", 0, "leaf-a", 1}};
  const v1::GetTopologyReply reply =
      TopologyReply(&source, "fabric.toml", {InventoryNodeOf("h1", gloo)});
  EXPECT_EQ(reply.hcas_not_in_fleet_size(), 0);
  EXPECT_EQ(reply.hcas_not_in_topology_size(), 0);
}

// With a fabric, the validation's nodes know their leaf (that of their
// lowest rail), so that round 1 pairs across leaves and loads the uplinks;
// without one, or for a node the fabric lacks, the leaf stays unknown.
TEST(TopologyView, ValidationNodesTakeTheirLeafFromTheFabric) {
  topology::Fabric fabric;
  fabric.cables = {{"n1", "mlx5_1", 1, "leaf-r1-a", 1},
                   {"n1", "mlx5_0", 0, "leaf-r0-a", 1},
                   {"n2", "mlx5_0", 0, "leaf-r0-a", 2},
                   {"n3", "mlx5_0", 0, "leaf-r0-b", 1},
                   {"n4", "mlx5_0", 0, "leaf-r0-b", 2}};
  std::vector<std::string> leaves;
  for (const char* name : {"n1", "n2", "n3", "n4", "n5"}) {
    NodeRecord record;
    record.name = name;
    EXPECT_EQ(NodeFromRecord(record).leaf, "");  // no topology: as before
    leaves.push_back(NodeFromRecord(record, &fabric).leaf);
  }
  EXPECT_THAT(leaves, ElementsAre("leaf-r0-a", "leaf-r0-a", "leaf-r0-b", "leaf-r0-b", ""));
  // Round 1 then crosses the leaves: n1 and n2 share leaf-r0-a, n3 and n4
  // leaf-r0-b, and no pair stays on one leaf.
  const std::vector<validation::NodePair> pairs =
      validation::FirstRoundMatching({0, 1, 2, 3}, {leaves.begin(), leaves.begin() + 4});
  ASSERT_EQ(pairs.size(), 2u);
  for (const validation::NodePair& pair : pairs) {
    EXPECT_NE(leaves[pair.first], leaves[pair.second]) << pair.first << "-" << pair.second;
  }
}

}  // namespace
}  // namespace eb::coordinator
