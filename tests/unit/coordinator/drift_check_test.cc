// FindDrift: which node differs from the majority, per fact that run-test
// checks (the comparison itself is tests/unit/validation/inventory_compare_test's).

#include "coordinator/core/collective_tests/drift_check.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using validation::FactDifference;

// An 8-GPU, 8-HCA node as our users run them.
v1::NodeInventory A800Node() {
  v1::NodeInventory inventory;
  inventory.set_nccl_version("2.21.5");
  inventory.set_driver_version("535.129.03");
  inventory.set_bootstrap_interface("bond0");
  v1::NetworkInterface& bond = *inventory.add_interfaces();
  bond.set_name("bond0");
  bond.set_mtu_bytes(9000);
  for (int i = 0; i < 8; ++i) {
    inventory.add_gpus()->set_name("NVIDIA A800-SXM4-80GB");
    v1::HcaInfo& hca = *inventory.add_hcas();
    hca.set_name("mlx5_10" + std::to_string(i));
    hca.set_port(1);
    hca.set_rate_gbps(200);
  }
  return inventory;
}

const std::vector<std::string> kNames = {"a800-0", "a800-1", "a800-2", "a800-3"};

TEST(FindDriftTest, IdenticalNodesHaveNoDrift) {
  EXPECT_THAT(FindDrift(kNames, std::vector<v1::NodeInventory>(4, A800Node())), IsEmpty());
}

TEST(FindDriftTest, NamesTheNodeThatDiffersFromTheMajority) {
  std::vector<v1::NodeInventory> nodes(4, A800Node());
  nodes[2].set_driver_version("550.54.15");
  const std::vector<FactDifference> drift = FindDrift(kNames, nodes);
  ASSERT_THAT(drift, SizeIs(1));
  EXPECT_EQ(drift[0].subject, "CUDA driver");
  EXPECT_EQ(drift[0].node, 2);
  EXPECT_EQ(drift[0].value, "550.54.15");
  EXPECT_EQ(drift[0].majority, "535.129.03");
  EXPECT_EQ(DescribeDrift(kNames, drift),
            "node a800-2: CUDA driver 550.54.15 differs from 535.129.03 on 3 of 4 nodes");
}

TEST(FindDriftTest, EveryAttribute) {
  std::vector<v1::NodeInventory> nodes(4, A800Node());
  nodes[0].set_nccl_version("2.18.3");
  nodes[1].mutable_gpus(5)->set_name("NVIDIA A100-SXM4-80GB");
  nodes[3].mutable_hcas(0)->set_rate_gbps(100);
  nodes[3].mutable_interfaces(0)->set_mtu_bytes(1500);
  const std::vector<FactDifference> drift = FindDrift(kNames, nodes);
  ASSERT_THAT(drift, SizeIs(4));
  EXPECT_EQ(drift[0].subject, "NCCL version");
  EXPECT_EQ(drift[0].node, 0);
  EXPECT_EQ(drift[1].subject, "GPU model");
  EXPECT_EQ(drift[1].node, 1);
  EXPECT_EQ(drift[1].value, "NVIDIA A100-SXM4-80GB,NVIDIA A800-SXM4-80GB");
  // Per port: the port is named, and its rate compared with that port's.
  EXPECT_EQ(drift[2].subject, "HCA mlx5_100:1 link rate");
  EXPECT_EQ(drift[2].node, 3);
  EXPECT_EQ(drift[2].value, "100 Gb/s");
  EXPECT_EQ(drift[2].majority, "200 Gb/s");
  EXPECT_EQ(DescribeDrift(kNames, {drift[2]}),
            "node a800-3: HCA mlx5_100:1 link rate 100 Gb/s differs from 200 Gb/s on 3 of 4 nodes");
  EXPECT_EQ(drift[3].subject, "bootstrap interface MTU");
  EXPECT_EQ(drift[3].value, "1500");
  EXPECT_EQ(drift[3].majority, "9000");
}

TEST(FindDriftTest, UnknownValuesNeverDrift) {
  std::vector<v1::NodeInventory> nodes(2, A800Node());
  nodes[0].mutable_hcas(0)->set_fw_ver("28.39.1002");
  nodes[1].clear_driver_version();
  for (v1::HcaInfo& hca : *nodes[1].mutable_hcas()) hca.set_rate_gbps(0);  // not read
  nodes[1].mutable_interfaces(0)->set_mtu_bytes(0);
  EXPECT_THAT(FindDrift({"a", "b"}, nodes), IsEmpty());
}

TEST(FindDriftTest, ANodeWithoutAPortDriftsInItsPorts) {
  std::vector<v1::NodeInventory> nodes(4, A800Node());
  nodes[1].mutable_hcas()->RemoveLast();
  nodes[2].clear_hcas();
  const std::vector<FactDifference> drift = FindDrift(kNames, nodes);
  ASSERT_THAT(drift, SizeIs(2));
  EXPECT_EQ(drift[0].subject, "HCA ports");
  EXPECT_EQ(drift[0].node, 1);
  EXPECT_EQ(drift[1].node, 2);
  EXPECT_EQ(DescribeDrift(kNames, {drift[1]}),
            "node a800-2: HCA ports (none) differs from "
            "mlx5_100:1,mlx5_101:1,mlx5_102:1,mlx5_103:1,mlx5_104:1,mlx5_105:1,mlx5_106:1,"
            "mlx5_107:1 on 2 of 4 nodes");
}

// Preflight judges them; a run-test across such nodes measures the network
// alike (inventory_facts.h).
TEST(FindDriftTest, GpuCountMemoryAndInterfaceNameDoNotRefuseARunTest) {
  std::vector<v1::NodeInventory> nodes(2, A800Node());
  for (int i = 0; i < 2; ++i) {
    for (v1::GpuInfo& gpu : *nodes[i].mutable_gpus())
      gpu.set_memory_bytes(int64_t{80 - 40 * i} << 30);
  }
  nodes[1].mutable_gpus()->RemoveLast();
  nodes[1].set_bootstrap_interface("eth0");  // at the same MTU
  nodes[1].mutable_interfaces(0)->set_name("eth0");
  EXPECT_THAT(FindDrift({"a", "b"}, nodes), IsEmpty());
}

TEST(FindDriftTest, WithoutAMajorityEveryNodeIsNamed) {
  std::vector<v1::NodeInventory> nodes(2, A800Node());
  nodes[1].set_driver_version("550.54.15");
  const std::vector<FactDifference> drift = FindDrift({"a", "b"}, nodes);
  ASSERT_THAT(drift, SizeIs(2));
  EXPECT_EQ(drift[0].node, 0);
  EXPECT_EQ(drift[1].node, 1);
  EXPECT_EQ(drift[0].majority, "");
  EXPECT_EQ(DescribeDrift({"a", "b"}, {drift[0]}),
            "node a: CUDA driver 535.129.03 (no majority: 2 nodes disagree)");
}

TEST(FindDriftTest, HcaFirmwareNamesTheOddNode) {
  std::vector<v1::NodeInventory> nodes(4, A800Node());
  for (v1::NodeInventory& node : nodes) {
    for (v1::HcaInfo& hca : *node.mutable_hcas()) hca.set_fw_ver("28.39.1002");
  }
  nodes[1].mutable_hcas(3)->set_fw_ver("28.35.2000");
  const std::vector<FactDifference> drift = FindDrift(kNames, nodes);
  ASSERT_THAT(drift, SizeIs(1));
  EXPECT_EQ(drift[0].fact, "firmware");
  EXPECT_EQ(drift[0].subject, "HCA mlx5_103:1 firmware");
  EXPECT_EQ(drift[0].node, 1);
  EXPECT_EQ(drift[0].value, "28.35.2000");
  EXPECT_EQ(drift[0].majority, "28.39.1002");
}

TEST(CheckDriftTest, RefusesWithTheFindingsOrWarnsWhenAllowed) {
  std::vector<v1::NodeInventory> nodes(4, A800Node());
  std::vector<std::string> warnings;
  EXPECT_TRUE(CheckDrift(kNames, nodes, false, &warnings).ok());
  nodes[2].set_driver_version("550.54.15");
  const absl::Status refused = CheckDrift(kNames, nodes, false, &warnings);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(refused.message()),
              ::testing::HasSubstr("node a800-2: CUDA driver 550.54.15 differs from 535.129.03 "
                                   "on 3 of 4 nodes"));
  EXPECT_THAT(std::string(refused.message()), ::testing::HasSubstr("--allow-drift"));
  EXPECT_THAT(warnings, IsEmpty());
  EXPECT_TRUE(CheckDrift(kNames, nodes, true, &warnings).ok());
  EXPECT_THAT(warnings, ::testing::ElementsAre("node a800-2: CUDA driver 550.54.15 differs from "
                                               "535.129.03 on 3 of 4 nodes"));
}

}  // namespace
}  // namespace eb::coordinator
