// Preflight: a node that differs from the fleet's majority is unfit, with a
// reason naming the fact and both values; ties have no majority. The
// comparison itself is inventory_compare_test's.
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

TEST(PreflightTest, AnOutlierIsUnfitWithTheFactAndBothValues) {
  using Inventory = ebnccl::v1::NodeInventory;
  struct Case {
    std::string name;
    std::function<void(Inventory&)> change;
    std::string reason;
  };
  auto every_gpu = [](const std::function<void(ebnccl::v1::GpuInfo&)>& f) {
    return [f](Inventory& n) {
      for (ebnccl::v1::GpuInfo& gpu : *n.mutable_gpus()) f(gpu);
    };
  };
  const Case cases[] = {
      {"nccl", [](Inventory& n) { n.set_nccl_version("2.27.3"); },
       "NCCL version: 2.27.3 here, 2.28.9 on the fleet's majority (4 of 5 nodes)"},
      {"driver", [](Inventory& n) { n.set_driver_version("570.1"); },
       "CUDA driver: 570.1 here, 580.95.05"},
      {"gpu model", every_gpu([](ebnccl::v1::GpuInfo& g) { g.set_name("NVIDIA H200"); }),
       "GPU model: NVIDIA H200 here"},
      {"gpu count", [](Inventory& n) { n.mutable_gpus()->RemoveLast(); },
       "GPU count: 7 here, 8 on"},
      {"gpu memory",
       every_gpu([](ebnccl::v1::GpuInfo& g) { g.set_memory_bytes(int64_t{40} << 30); }),
       "GPU memory: 40.0 GiB here, 80.0 GiB"},
      {"hca down", [](Inventory& n) { n.mutable_hcas(3)->set_state("1: DOWN"); },
       "HCA mlx5_3:1 state: DOWN here, ACTIVE on the fleet's majority (4 of 5 nodes)"},
      {"hca ethernet", [](Inventory& n) { n.mutable_hcas(0)->set_link_layer("Ethernet"); },
       "HCA mlx5_0:1 link layer: Ethernet here, InfiniBand"},
      {"hca rate", [](Inventory& n) { n.mutable_hcas(5)->set_rate_gbps(200); },
       "HCA mlx5_5:1 link rate: 200 Gb/s here, 400 Gb/s"},
      {"hca firmware", [](Inventory& n) { n.mutable_hcas(2)->set_fw_ver("28.35.2000"); },
       "HCA mlx5_2:1 firmware: 28.35.2000 here, 28.39.1002"},
      // One reason: the other ports' facts compare only the nodes that
      // have them.
      {"hca missing", [](Inventory& n) { n.mutable_hcas()->RemoveLast(); },
       "HCA ports: mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1 here, "},
      {"no nccl", [](Inventory& n) { n.clear_nccl_version(); }, "NCCL version: (none) here"},
      // The MTU of an interface the inventory does not list is unknown.
      {"interface", [](Inventory& n) { n.set_bootstrap_interface("eth1"); },
       "bootstrap interface: eth1 here, eth0"},
      {"any interface", [](Inventory& n) { n.clear_bootstrap_interface(); },
       "bootstrap interface: (any) here, eth0"},
      {"mtu", [](Inventory& n) { n.mutable_interfaces(0)->set_mtu_bytes(1500); },
       "bootstrap interface MTU: 1500 here, 9000 on the fleet's majority (4 of 5 nodes)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<Node> nodes = H100Fleet(5);
    c.change(nodes[2].inventory);
    const std::vector<NodePreflight> result = RunPreflight(nodes);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(result[i].fit, i != 2) << i;
    ASSERT_EQ(result[2].reasons.size(), 1u) << ::testing::PrintToString(result[2].reasons);
    EXPECT_THAT(result[2].reasons[0], HasSubstr(c.reason));
  }
}

TEST(PreflightTest, ATieHasNoMajorityAndEveryNodeOfItIsUnfit) {
  std::vector<Node> nodes = H100Fleet(2);
  nodes[1].inventory.set_nccl_version("2.27.3");
  const std::vector<NodePreflight> result = RunPreflight(nodes);
  for (const NodePreflight& p : result) {
    EXPECT_FALSE(p.fit);
    ASSERT_EQ(p.reasons.size(), 1u);
    EXPECT_THAT(p.reasons[0], HasSubstr("no majority (2.27.3, 2.28.9 on 1 nodes each, of 2)"));
  }
  EXPECT_EQ(result[0].reasons[0],
            "NCCL version: 2.28.9 here; no majority (2.27.3, 2.28.9 on 1 nodes each, of 2): "
            "cannot tell which is right");
}

TEST(PreflightTest, UnreachableNodesTakeNoPartAndUnknownValuesAreNotCompared) {
  std::vector<Node> nodes = H100Fleet(4);
  nodes[0].reachable = false;
  nodes[0].inventory.set_nccl_version("2.10");  // would be an outlier
  for (ebnccl::v1::GpuInfo& gpu : *nodes[1].inventory.mutable_gpus()) {
    gpu.set_memory_bytes(0);  // unknown (no NVML)
  }
  nodes[2].inventory.mutable_hcas(4)->clear_fw_ver();          // unknown
  nodes[3].inventory.mutable_interfaces(0)->set_mtu_bytes(0);  // unknown
  const std::vector<NodePreflight> result = RunPreflight(nodes);
  EXPECT_FALSE(result[0].compared);
  for (const NodePreflight& p : result) EXPECT_TRUE(p.fit);
}

TEST(PreflightTest, SeveralDifferencesGiveSeveralReasons) {
  std::vector<Node> nodes = H100Fleet(3);
  nodes[1].inventory.set_nccl_version("2.27.3");
  nodes[1].inventory.mutable_hcas(0)->set_state("DOWN");
  const std::vector<NodePreflight> result = RunPreflight(nodes);
  EXPECT_FALSE(result[1].fit);
  EXPECT_THAT(result[1].reasons,
              ElementsAre(HasSubstr("NCCL version"), HasSubstr("HCA mlx5_0:1 state")));
}

}  // namespace
}  // namespace eb::validation
