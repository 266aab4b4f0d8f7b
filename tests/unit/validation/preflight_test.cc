// Preflight: a node that differs from the fleet's majority is unfit, with a
// reason naming the attribute and both values; ties have no majority.
#include "coordinator/validation/preflight.h"

#include <functional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/validation/fleet_fixture.h"

namespace eb::validation {
namespace {

using test::H100Fleet;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(PreflightTest, AUniformFleetIsFit) {
  for (const NodePreflight& p : RunPreflight(H100Fleet(5))) {
    EXPECT_TRUE(p.compared);
    EXPECT_TRUE(p.fit);
    EXPECT_TRUE(p.reasons.empty());
  }
}

TEST(PreflightTest, AnOutlierIsUnfitWithTheAttributeAndBothValues) {
  struct Case {
    std::string name;
    std::function<void(Node&)> change;
    std::string reason;
  };
  const Case cases[] = {
      {"nccl", [](Node& n) { n.nccl_version = "2.27.3"; },
       "nccl_version: 2.27.3 here, 2.28.9 on the fleet's majority (4 of 5 nodes)"},
      {"driver", [](Node& n) { n.driver_version = "570.1"; }, "driver_version: 570.1 here"},
      {"cuda", [](Node& n) { n.cuda_version = "12.8"; }, "cuda_version: 12.8 here, 13.0"},
      {"gpu model", [](Node& n) { n.gpu_model = "NVIDIA H200"; }, "gpu_model: NVIDIA H200 here"},
      {"gpu count", [](Node& n) { n.gpu_count = 7; }, "gpu_count: 7 here, 8 on"},
      {"gpu memory", [](Node& n) { n.gpu_memory_bytes = int64_t{40} << 30; },
       "gpu_memory: 40.0 GiB here, 80.0 GiB"},
      {"hca down", [](Node& n) { n.hcas[3].state = "1: DOWN"; },
       "hca mlx5_3:1 state: DOWN here, ACTIVE on the fleet's majority (4 of 5 nodes)"},
      {"hca ethernet", [](Node& n) { n.hcas[0].link_layer = "Ethernet"; },
       "hca mlx5_0:1 link_layer: Ethernet here, InfiniBand"},
      {"hca rate", [](Node& n) { n.hcas[5].rate_gbps = 200; },
       "hca mlx5_5:1 rate: 200G here, 400G"},
      {"hca missing", [](Node& n) { n.hcas.pop_back(); }, "hca_ports: "},
      {"no nccl", [](Node& n) { n.nccl_version = ""; }, "nccl_version: (none) here"},
      {"interface", [](Node& n) { n.bootstrap_interface = "eth1"; },
       "bootstrap_interface: eth1 here, eth0"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<Node> nodes = H100Fleet(5);
    c.change(nodes[2]);
    const std::vector<NodePreflight> result = RunPreflight(nodes);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(result[i].fit, i != 2) << i;
    ASSERT_EQ(result[2].reasons.size(), 1u);
    EXPECT_THAT(result[2].reasons[0], HasSubstr(c.reason));
  }
}

TEST(PreflightTest, ATieHasNoMajorityAndEveryNodeOfItIsUnfit) {
  std::vector<Node> nodes = H100Fleet(2);
  nodes[1].nccl_version = "2.27.3";
  const std::vector<NodePreflight> result = RunPreflight(nodes);
  for (const NodePreflight& p : result) {
    EXPECT_FALSE(p.fit);
    ASSERT_EQ(p.reasons.size(), 1u);
    EXPECT_THAT(p.reasons[0], HasSubstr("no majority (2.27.3, 2.28.9 on 1 nodes each, of 2)"));
  }
}

TEST(PreflightTest, UnreachableNodesTakeNoPartAndUnknownMemoryIsNotCompared) {
  std::vector<Node> nodes = H100Fleet(4);
  nodes[0].reachable = false;
  nodes[0].nccl_version = "2.10";  // would be an outlier
  nodes[1].gpu_memory_bytes = 0;   // unknown (no NVML)
  const std::vector<NodePreflight> result = RunPreflight(nodes);
  EXPECT_FALSE(result[0].compared);
  for (const NodePreflight& p : result) EXPECT_TRUE(p.fit);
}

TEST(PreflightTest, SeveralDifferencesGiveSeveralReasons) {
  std::vector<Node> nodes = H100Fleet(3);
  nodes[1].nccl_version = "2.27.3";
  nodes[1].hcas[0].state = "DOWN";
  const std::vector<NodePreflight> result = RunPreflight(nodes);
  EXPECT_FALSE(result[1].fit);
  EXPECT_THAT(result[1].reasons,
              ElementsAre(HasSubstr("nccl_version"), HasSubstr("hca mlx5_0:1 state")));
}

}  // namespace
}  // namespace eb::validation
