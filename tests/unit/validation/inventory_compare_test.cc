// CompareInventories: the one majority comparison behind preflight and
// run-test's drift check. Majority, ties, unknown and absent values, facts
// per HCA port and per GPU, nodes that lack a device or take no part.
#include "coordinator/validation/inventory_compare.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/validation/fleet_fixture.h"

namespace eb::validation {
namespace {

namespace v1 = ebnccl::v1;
using test::H100Inventory;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

std::vector<const v1::NodeInventory*> Pointers(const std::vector<v1::NodeInventory>& nodes) {
  std::vector<const v1::NodeInventory*> pointers;
  for (const v1::NodeInventory& node : nodes) pointers.push_back(&node);
  return pointers;
}

std::vector<FactDifference> Compare(const std::vector<v1::NodeInventory>& nodes) {
  return CompareInventories(Pointers(nodes));
}

std::vector<int> NodesOf(const std::vector<FactDifference>& differences) {
  std::vector<int> nodes;
  for (const FactDifference& d : differences) nodes.push_back(d.node);
  return nodes;
}

TEST(InventoryCompareTest, IdenticalNodesDoNotDiffer) {
  EXPECT_THAT(Compare(std::vector<v1::NodeInventory>(5, H100Inventory())), IsEmpty());
  EXPECT_THAT(Compare({}), IsEmpty());
  EXPECT_THAT(Compare({H100Inventory()}), IsEmpty());
}

TEST(InventoryCompareTest, TheOddNodeDiffersFromTheMajority) {
  std::vector<v1::NodeInventory> nodes(4, H100Inventory());
  nodes[1].set_driver_version("570.1");
  const std::vector<FactDifference> d = Compare(nodes);
  ASSERT_THAT(d, SizeIs(1));
  EXPECT_EQ(d[0].fact, "CUDA driver");
  EXPECT_EQ(d[0].subject, "CUDA driver");
  EXPECT_EQ(d[0].node, 1);
  EXPECT_EQ(d[0].value, "570.1");
  EXPECT_EQ(d[0].majority, "580.95.05");
  EXPECT_THAT(d[0].tied, IsEmpty());
  EXPECT_EQ(d[0].majority_nodes, 3);
  EXPECT_EQ(d[0].value_nodes, 1);
  EXPECT_EQ(d[0].compared_nodes, 4);
}

TEST(InventoryCompareTest, TheMostCommonValueIsTheMajorityEvenWithoutHalf) {
  std::vector<v1::NodeInventory> nodes(5, H100Inventory());
  nodes[2].set_nccl_version("2.27.3");
  nodes[3].set_nccl_version("2.26.2");
  nodes[4].set_nccl_version("2.21.5");
  const std::vector<FactDifference> d = Compare(nodes);
  EXPECT_THAT(NodesOf(d), ElementsAre(2, 3, 4));
  for (const FactDifference& f : d) {
    EXPECT_EQ(f.majority, "2.28.9");
    EXPECT_EQ(f.majority_nodes, 2);
    EXPECT_EQ(f.compared_nodes, 5);
  }
}

TEST(InventoryCompareTest, ATieHasNoMajorityAndNamesEveryComparedNode) {
  std::vector<v1::NodeInventory> nodes(5, H100Inventory());
  nodes[2].set_nccl_version("2.27.3");
  nodes[3].set_nccl_version("2.27.3");
  nodes[4].set_nccl_version("2.21.5");  // not among the tied, named too
  const std::vector<FactDifference> d = Compare(nodes);
  EXPECT_THAT(NodesOf(d), ElementsAre(0, 1, 2, 3, 4));
  for (const FactDifference& f : d) {
    EXPECT_EQ(f.majority, "");
    EXPECT_THAT(f.tied, ElementsAre("2.27.3", "2.28.9"));
    EXPECT_EQ(f.majority_nodes, 2);
  }
  EXPECT_EQ(d[4].value_nodes, 1);
  // Two nodes that disagree are a tie.
  std::vector<v1::NodeInventory> two(2, H100Inventory());
  two[1].set_nccl_version("2.27.3");
  EXPECT_THAT(NodesOf(Compare(two)), ElementsAre(0, 1));
}

TEST(InventoryCompareTest, UnknownValuesAreNotComparedAbsentOnesAre) {
  std::vector<v1::NodeInventory> nodes(3, H100Inventory());
  // Unknown: not counted, never named.
  for (v1::GpuInfo& gpu : *nodes[0].mutable_gpus()) gpu.set_memory_bytes(0);
  nodes[1].mutable_hcas(2)->clear_fw_ver();
  nodes[1].mutable_hcas(3)->set_rate_gbps(0);
  nodes[1].mutable_hcas(4)->clear_link_layer();
  nodes[2].mutable_interfaces(0)->set_mtu_bytes(0);
  EXPECT_THAT(Compare(nodes), IsEmpty());
  // An unknown value does not count towards the majority either: two
  // known values of three nodes tie.
  nodes[2].mutable_hcas(2)->set_fw_ver("28.35.2000");
  std::vector<FactDifference> d = Compare(nodes);
  ASSERT_THAT(d, SizeIs(2));
  EXPECT_EQ(d[0].subject, "HCA mlx5_2:1 firmware");
  EXPECT_THAT(NodesOf(d), ElementsAre(0, 2));
  EXPECT_EQ(d[0].compared_nodes, 2);
  // Absent (no NCCL) is a value: "(none)".
  nodes = std::vector<v1::NodeInventory>(3, H100Inventory());
  nodes[1].clear_nccl_version();
  d = Compare(nodes);
  ASSERT_THAT(d, SizeIs(1));
  EXPECT_EQ(d[0].value, "(none)");
  EXPECT_EQ(d[0].majority, "2.28.9");
}

TEST(InventoryCompareTest, APortFactIsComparedPerPortAndNamesThePort) {
  std::vector<v1::NodeInventory> nodes(4, H100Inventory());
  nodes[3].mutable_hcas(6)->set_rate_gbps(200);
  nodes[3].mutable_hcas(1)->set_state("1: DOWN");
  nodes[0].mutable_hcas(1)->set_state("ACTIVE");  // the same state as "4: ACTIVE"
  const std::vector<FactDifference> d = Compare(nodes);
  ASSERT_THAT(d, SizeIs(2));
  EXPECT_EQ(d[0].fact, "state");
  EXPECT_EQ(d[0].subject, "HCA mlx5_1:1 state");
  EXPECT_EQ(d[0].value, "DOWN");
  EXPECT_EQ(d[0].majority, "ACTIVE");
  EXPECT_EQ(d[1].subject, "HCA mlx5_6:1 link rate");
  EXPECT_EQ(d[1].value, "200 Gb/s");
  EXPECT_EQ(d[1].majority, "400 Gb/s");
  EXPECT_EQ(d[1].node, 3);
}

TEST(InventoryCompareTest, ANodeMissingAPortDiffersInThePortsOnly) {
  std::vector<v1::NodeInventory> nodes(3, H100Inventory());
  nodes[1].mutable_hcas()->DeleteSubrange(3, 1);  // mlx5_3
  // The port's facts compare the nodes that have it: their ties and
  // majorities do not count the node without it.
  nodes[2].mutable_hcas(3)->set_state("DOWN");
  const std::vector<FactDifference> d = Compare(nodes);
  ASSERT_THAT(d, SizeIs(3));
  EXPECT_EQ(d[0].subject, "HCA ports");
  EXPECT_EQ(d[0].node, 1);
  EXPECT_EQ(d[0].value, "mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1");
  EXPECT_EQ(d[1].subject, "HCA mlx5_3:1 state");
  EXPECT_EQ(d[2].subject, "HCA mlx5_3:1 state");
  EXPECT_THAT(NodesOf({d[1], d[2]}), ElementsAre(0, 2));
  EXPECT_EQ(d[1].compared_nodes, 2);
  // A node without any port has "(none)".
  nodes = std::vector<v1::NodeInventory>(3, H100Inventory());
  nodes[0].clear_hcas();
  const std::vector<FactDifference> none = Compare(nodes);
  ASSERT_THAT(none, SizeIs(1));
  EXPECT_EQ(none[0].subject, "HCA ports");
  EXPECT_EQ(none[0].value, "(none)");
}

TEST(InventoryCompareTest, NullInventoriesTakeNoPart) {
  std::vector<v1::NodeInventory> nodes(3, H100Inventory());
  nodes[0].set_nccl_version("2.10");
  nodes[0].clear_hcas();
  std::vector<const v1::NodeInventory*> compared = Pointers(nodes);
  compared[0] = nullptr;
  EXPECT_THAT(CompareInventories(compared), IsEmpty());
  compared[1] = nullptr;
  compared[2] = nullptr;
  EXPECT_THAT(CompareInventories(compared), IsEmpty());
}

// A per-GPU fact (the next issue's PCIe links) is one row: here the NUMA
// node, read per GPU and named by its index.
TEST(InventoryCompareTest, AGpuFactIsComparedPerGpuByIndex) {
  const std::vector<InventoryFact> facts = {
      {"NUMA node", GpuFactReader{[](const v1::GpuInfo& g) {
         return g.numa_node() < 0 ? std::string() : std::to_string(g.numa_node());
       }},
       nullptr, FactUse::kPreflightOnly},
  };
  std::vector<v1::NodeInventory> nodes(3, H100Inventory());
  for (v1::NodeInventory& node : nodes) {
    for (v1::GpuInfo& gpu : *node.mutable_gpus()) gpu.set_numa_node(gpu.index() < 4 ? 0 : 1);
  }
  nodes[1].mutable_gpus(3)->set_numa_node(1);
  nodes[2].mutable_gpus(5)->set_numa_node(-1);  // unknown
  nodes[2].mutable_gpus()->RemoveLast();        // GPU 7: compared on the others
  const std::vector<FactDifference> d = CompareInventories(Pointers(nodes), facts);
  ASSERT_THAT(d, SizeIs(1));
  EXPECT_EQ(d[0].subject, "GPU 3 NUMA node");
  EXPECT_EQ(d[0].node, 1);
  EXPECT_EQ(d[0].value, "1");
  EXPECT_EQ(d[0].majority, "0");
  EXPECT_EQ(d[0].compared_nodes, 3);
}

TEST(InventoryCompareTest, DifferencesComeByFactThenDeviceThenNode) {
  std::vector<v1::NodeInventory> nodes(3, H100Inventory());
  nodes[2].set_nccl_version("2.27.3");
  nodes[1].mutable_hcas(5)->set_fw_ver("28.35.2000");
  nodes[1].mutable_hcas(0)->set_fw_ver("28.35.2000");
  nodes[0].mutable_interfaces(0)->set_mtu_bytes(1500);
  std::vector<std::string> subjects;
  for (const FactDifference& f : Compare(nodes)) subjects.push_back(f.subject);
  EXPECT_THAT(subjects, ElementsAre("NCCL version", "HCA mlx5_0:1 firmware",
                                    "HCA mlx5_5:1 firmware", "bootstrap interface MTU"));
}

// A fact is named with its device ("GPU 3 PCIe link", "HCA mlx5_3:1 PCIe
// link"): a name is unique per kind of thing it is read on.
TEST(InventoryFactsTest, NamesAreUniqueAndRunTestFactsAreTheMarkedOnes) {
  std::set<std::pair<size_t, std::string>> names;
  for (const InventoryFact& fact : InventoryFacts()) {
    EXPECT_TRUE(names.emplace(fact.read.index(), fact.name).second) << fact.name;
  }
  std::vector<std::string> run_test;
  for (const InventoryFact& fact : RunTestFacts()) run_test.push_back(fact.name);
  EXPECT_THAT(run_test,
              ElementsAre("NCCL version", "CUDA driver", "GPU model", "HCA ports", "state",
                          "link layer", "link rate", "firmware", "bootstrap interface MTU"));
}

}  // namespace
}  // namespace eb::validation
