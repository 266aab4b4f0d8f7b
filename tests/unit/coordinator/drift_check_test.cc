// FindDrift: which node differs from the majority, per attribute.

#include "coordinator/core/drift_check.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::IsEmpty;
using ::testing::SizeIs;

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
  const std::vector<DriftFinding> drift = FindDrift(kNames, nodes);
  ASSERT_THAT(drift, SizeIs(1));
  EXPECT_EQ(drift[0].attribute, "CUDA driver");
  EXPECT_EQ(drift[0].node, "a800-2");
  EXPECT_EQ(drift[0].value, "550.54.15");
  EXPECT_EQ(drift[0].majority, "535.129.03");
  EXPECT_EQ(DescribeDrift(drift),
            "node a800-2: CUDA driver 550.54.15 differs from 535.129.03 on 3 of 4 nodes");
}

TEST(FindDriftTest, EveryAttribute) {
  std::vector<v1::NodeInventory> nodes(4, A800Node());
  nodes[0].set_nccl_version("2.18.3");
  nodes[1].mutable_gpus(5)->set_name("NVIDIA A100-SXM4-80GB");
  nodes[3].mutable_hcas(0)->set_rate_gbps(100);
  nodes[3].mutable_interfaces(0)->set_mtu_bytes(1500);
  const std::vector<DriftFinding> drift = FindDrift(kNames, nodes);
  ASSERT_THAT(drift, SizeIs(4));
  EXPECT_EQ(drift[0].attribute, "NCCL version");
  EXPECT_EQ(drift[0].node, "a800-0");
  EXPECT_EQ(drift[1].attribute, "GPU model");
  EXPECT_EQ(drift[1].node, "a800-1");
  EXPECT_EQ(drift[1].value, "NVIDIA A100-SXM4-80GB,NVIDIA A800-SXM4-80GB");
  EXPECT_EQ(drift[2].attribute, "HCA link rate");
  EXPECT_EQ(drift[2].node, "a800-3");
  EXPECT_EQ(drift[2].value, "100 Gb/s,200 Gb/s");
  EXPECT_EQ(drift[3].attribute, "bootstrap interface MTU");
  EXPECT_EQ(drift[3].value, "1500");
  EXPECT_EQ(drift[3].majority, "9000");
}

TEST(FindDriftTest, UnknownValuesNeverDrift) {
  std::vector<v1::NodeInventory> nodes(2, A800Node());
  nodes[1].clear_driver_version();
  nodes[1].clear_hcas();  // a node without HCAs reports no firmware or rate
  EXPECT_THAT(FindDrift({"a", "b"}, nodes), IsEmpty());
}

TEST(FindDriftTest, WithoutAMajorityEveryNodeIsNamed) {
  std::vector<v1::NodeInventory> nodes(2, A800Node());
  nodes[1].set_driver_version("550.54.15");
  const std::vector<DriftFinding> drift = FindDrift({"a", "b"}, nodes);
  ASSERT_THAT(drift, SizeIs(2));
  EXPECT_EQ(drift[0].node, "a");
  EXPECT_EQ(drift[1].node, "b");
  EXPECT_EQ(drift[0].majority, "");
  EXPECT_EQ(DescribeDrift({drift[0]}),
            "node a: CUDA driver 535.129.03 (no majority: 2 nodes disagree)");
}

TEST(FindDriftTest, HcaFirmwareNamesTheOddNode) {
  std::vector<v1::NodeInventory> nodes(4, A800Node());
  for (v1::NodeInventory& node : nodes) {
    for (v1::HcaInfo& hca : *node.mutable_hcas()) hca.set_fw_ver("28.39.1002");
  }
  nodes[1].mutable_hcas(3)->set_fw_ver("28.35.2000");
  const std::vector<DriftFinding> drift = FindDrift(kNames, nodes);
  ASSERT_THAT(drift, SizeIs(1));
  EXPECT_EQ(drift[0].attribute, "HCA firmware");
  EXPECT_EQ(drift[0].node, "a800-1");
  EXPECT_EQ(drift[0].value, "28.35.2000,28.39.1002");
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
