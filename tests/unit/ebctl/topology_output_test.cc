// `ebctl topology` (issue 31): the text names counts, switches, cables and
// every disagreement; the JSON document carries the same; a disagreement
// is what makes the command exit 7.
#include "coordinator/ebctl/output/topology_output.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::ebctl {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::HasSubstr;

v1::GetTopologyReply Loaded() {
  v1::GetTopologyReply reply;
  reply.set_loaded(true);
  reply.set_file("/etc/ebnccl/fabric.topo");
  reply.set_format("ibnetdiscover");
  for (const char* leaf : {"leaf-a", "leaf-b"}) {
    v1::TopologySwitch& sw = *reply.add_switches();
    sw.set_name(leaf);
    sw.set_role("leaf");
  }
  v1::TopologySwitch& spine = *reply.add_switches();
  spine.set_name("spine-1");
  spine.set_role("spine");
  spine.set_guid("0x7cfe900300a5b000");
  v1::TopologyCable& cable = *reply.add_cables();
  cable.set_node("n1");
  cable.set_hca("mlx5_0");
  cable.set_leaf("leaf-a");
  cable.set_leaf_port(1);
  v1::TopologyUplink& uplink = *reply.add_uplinks();
  uplink.set_leaf("leaf-a");
  uplink.set_leaf_port(33);
  uplink.set_spine("spine-1");
  uplink.set_spine_port(1);
  return reply;
}

TEST(TopologyOutput, NoTopology) {
  const v1::GetTopologyReply none;
  EXPECT_THAT(TopologyText(none), HasSubstr("no topology loaded"));
  EXPECT_FALSE(TopologyMismatches(none));
  EXPECT_EQ(TopologyToJson(none)["loaded"], false);
}

TEST(TopologyOutput, ShowsWhatWasLoaded) {
  const v1::GetTopologyReply reply = Loaded();
  const std::string text = TopologyText(reply);
  EXPECT_THAT(text, HasSubstr("topology /etc/ebnccl/fabric.topo (ibnetdiscover): 2 leaves, "
                              "1 spines, 1 uplinks, 1 nodes, 1 node-side cables"));
  EXPECT_THAT(text, HasSubstr("0x7cfe900300a5b000"));
  EXPECT_THAT(text, HasSubstr("agree"));
  EXPECT_FALSE(TopologyMismatches(reply));
  const nlohmann::json doc = TopologyToJson(reply);
  EXPECT_EQ(doc["schema"], "ebnccl.topology");
  EXPECT_EQ(doc["counts"]["leaves"], 2);
  EXPECT_EQ(doc["counts"]["spines"], 1);
  EXPECT_EQ(doc["cables"][0]["leaf_port"], 1);
  EXPECT_EQ(doc["uplinks"][0]["spine"], "spine-1");
  EXPECT_EQ(doc["mismatch"], false);
}

TEST(TopologyOutput, NamesEveryDisagreement) {
  v1::GetTopologyReply reply = Loaded();
  reply.add_nodes_not_in_fleet("n9");
  reply.add_nodes_not_in_topology("n3");
  v1::NodeHca& missing = *reply.add_hcas_not_in_fleet();
  missing.set_node("n1");
  missing.set_hca("mlx5_1");
  v1::NodeHca& extra = *reply.add_hcas_not_in_topology();
  extra.set_node("n1");
  extra.set_hca("mlx5_0/2");
  EXPECT_TRUE(TopologyMismatches(reply));
  const std::string text = TopologyText(reply);
  EXPECT_THAT(text, HasSubstr("n9: in the topology, no agent of that name"));
  EXPECT_THAT(text, HasSubstr("n3: an agent, no cable in the topology"));
  EXPECT_THAT(text, HasSubstr("n1 mlx5_1: cabled in the topology, not reported by its agent"));
  EXPECT_THAT(text, HasSubstr("n1 mlx5_0/2: reported by its agent, no cable in the topology"));
  const nlohmann::json doc = TopologyToJson(reply);
  EXPECT_EQ(doc["mismatch"], true);
  EXPECT_EQ(doc["mismatches"]["nodes_not_in_fleet"][0], "n9");
  EXPECT_EQ(doc["mismatches"]["hcas_not_in_topology"][0]["hca"], "mlx5_0/2");
}

}  // namespace
}  // namespace eb::ebctl
