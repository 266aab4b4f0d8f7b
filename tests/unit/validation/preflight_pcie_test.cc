// Preflight on PCIe and port links (issue 29, item 5): a device whose link
// runs below its own maximum makes its node unfit, naming the device and
// both figures; the current links and the GPU-HCA affinity are compared
// with the fleet's majority like every other fact; unknown values are
// never a difference.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "coordinator/validation/inventory_compare.h"
#include "coordinator/validation/pcie_links.h"
#include "coordinator/validation/preflight.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/validation/fleet_fixture.h"

namespace eb::validation {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using Inventory = ebnccl::v1::NodeInventory;

void SetLink(ebnccl::v1::PcieLink& link, uint32_t width, const std::string& speed,
             uint32_t max_width = 16, const std::string& max_speed = "32.0 GT/s PCIe") {
  link.set_current_width(width);
  link.set_current_speed(speed);
  link.set_max_width(max_width);
  link.set_max_speed(max_speed);
}

// The H100 fleet with every link at its maximum (Gen5 x16), bus ids, each
// port 4X, and GPU g nearest to mlx5_g behind its switch.
std::vector<Node> LinkedFleet(int n) {
  std::vector<Node> nodes = test::H100Fleet(n);
  for (Node& node : nodes) {
    for (ebnccl::v1::GpuInfo& gpu : *node.inventory.mutable_gpus()) {
      gpu.set_pci_bus_id(absl::StrFormat("0000:%02x:00.0", 0x1b + gpu.index() * 0x10));
      SetLink(*gpu.mutable_pcie_link(), 16, "32.0 GT/s PCIe");
      gpu.set_nearest_hca(absl::StrFormat("mlx5_%d", gpu.index()));
      gpu.set_hca_affinity("same PCIe switch");
    }
    for (int h = 0; h < node.inventory.hcas_size(); ++h) {
      ebnccl::v1::HcaInfo& hca = *node.inventory.mutable_hcas(h);
      hca.set_pci_bus_id(absl::StrFormat("0000:%02x:00.0", 0x1a + h * 0x10));
      SetLink(*hca.mutable_pcie_link(), 16, "32.0 GT/s PCIe");
      hca.set_link_width(4);
    }
  }
  return nodes;
}

std::vector<std::string> ReasonsOf(const std::vector<Node>& nodes, int node) {
  return RunPreflight(nodes)[node].reasons;
}

TEST(PreflightPcieTest, EveryLinkAtItsMaximumIsFit) {
  for (const NodePreflight& p : RunPreflight(LinkedFleet(5))) {
    EXPECT_TRUE(p.fit);
    EXPECT_THAT(p.reasons, IsEmpty());
  }
}

// One case per kind of link that trained down. Each is also unlike the
// fleet's majority; the first reason is the device against itself.
TEST(PreflightPcieTest, ALinkBelowItsOwnMaximumIsUnfitNamingTheDeviceAndBothFigures) {
  struct Case {
    std::string name;
    std::function<void(Inventory&)> change;
    std::vector<std::string> reasons;
  };
  const Case cases[] = {
      {"gpu width",
       [](Inventory& n) { SetLink(*n.mutable_gpus(3)->mutable_pcie_link(), 8, "32.0 GT/s PCIe"); },
       {"GPU 3 (0000:4b:00.0) PCIe link x8 32.0 GT/s, capable of x16 32.0 GT/s",
        "GPU 3 PCIe link width: x8 here, x16 on the fleet's majority (4 of 5 nodes)"}},
      {"gpu speed",
       [](Inventory& n) { SetLink(*n.mutable_gpus(3)->mutable_pcie_link(), 16, "16.0 GT/s PCIe"); },
       {"GPU 3 (0000:4b:00.0) PCIe link x16 16.0 GT/s, capable of x16 32.0 GT/s",
        "GPU 3 PCIe link speed: 16.0 GT/s here, 32.0 GT/s on the fleet's majority (4 of 5 "
        "nodes)"}},
      {"hca pcie",
       [](Inventory& n) { SetLink(*n.mutable_hcas(5)->mutable_pcie_link(), 8, "16.0 GT/s"); },
       {"HCA mlx5_5 (0000:6a:00.0) PCIe link x8 16.0 GT/s, capable of x16 32.0 GT/s",
        "HCA mlx5_5:1 PCIe link width: x8 here, x16 on the fleet's majority (4 of 5 nodes)",
        "HCA mlx5_5:1 PCIe link speed: 16.0 GT/s here, 32.0 GT/s on the fleet's majority (4 of "
        "5 nodes)"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<Node> nodes = LinkedFleet(5);
    c.change(nodes[2].inventory);
    const std::vector<NodePreflight> result = RunPreflight(nodes);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(result[i].fit, i != 2) << i;
    EXPECT_EQ(result[2].reasons, c.reasons);
  }
}

TEST(PreflightPcieTest, ANarrowerPortIsUnlikeTheMajorityBesideItsRate) {
  std::vector<Node> nodes = LinkedFleet(5);
  ebnccl::v1::HcaInfo& port = *nodes[1].inventory.mutable_hcas(6);
  port.set_rate_gbps(200);  // "200 Gb/sec (2X NDR)"
  port.set_link_width(2);
  EXPECT_THAT(ReasonsOf(nodes, 1),
              ElementsAre("HCA mlx5_6:1 link rate: 200 Gb/s here, 400 Gb/s on the fleet's "
                          "majority (4 of 5 nodes)",
                          "HCA mlx5_6:1 link width: 2X here, 4X on the fleet's majority (4 of 5 "
                          "nodes)"));
  // The width is preflight's alone: the rate already refuses a run-test.
  for (const InventoryFact& fact : RunTestFacts()) {
    EXPECT_NE(std::string(fact.name), "link width");
    EXPECT_NE(std::string(fact.name), "PCIe link width");
    EXPECT_NE(std::string(fact.name), "PCIe link speed");
    EXPECT_NE(std::string(fact.name), "nearest HCA");
  }
}

// A node at its own maximum that runs slower than the fleet (an older
// platform, a Gen4 slot) is only unlike the majority.
TEST(PreflightPcieTest, ALinkAtItsOwnMaximumBelowTheFleetsIsUnlikeTheMajority) {
  std::vector<Node> nodes = LinkedFleet(5);
  for (ebnccl::v1::GpuInfo& gpu : *nodes[4].inventory.mutable_gpus()) {
    SetLink(*gpu.mutable_pcie_link(), 16, "16.0 GT/s PCIe", 16, "16.0 GT/s PCIe");
  }
  const std::vector<std::string> reasons = ReasonsOf(nodes, 4);
  ASSERT_EQ(reasons.size(), 8u);
  EXPECT_EQ(reasons[0],
            "GPU 0 PCIe link speed: 16.0 GT/s here, 32.0 GT/s on the fleet's majority (4 of 5 "
            "nodes)");
  for (const std::string& reason : reasons) EXPECT_THAT(reason, Not(HasSubstr("capable of")));
}

TEST(PreflightPcieTest, UnknownLinksAreNeverADifference) {
  std::vector<Node> nodes = LinkedFleet(5);
  // Missing files: nothing read.
  nodes[0].inventory.mutable_gpus(2)->clear_pcie_link();
  nodes[0].inventory.mutable_hcas(1)->clear_pcie_link();
  nodes[0].inventory.mutable_hcas(1)->set_link_width(0);
  // Half known: a width without a speed, a maximum without a current.
  SetLink(*nodes[1].inventory.mutable_gpus(2)->mutable_pcie_link(), 8, "", 16, "");
  SetLink(*nodes[2].inventory.mutable_hcas(3)->mutable_pcie_link(), 0, "", 16, "32.0 GT/s");
  // Garbage the agent could not parse: empty values and an error.
  ebnccl::v1::PcieLink& garbage = *nodes[3].inventory.mutable_gpus(5)->mutable_pcie_link();
  garbage.Clear();
  garbage.set_error("/sys/.../current_link_width: 'x?' is not a lane count");
  // The topology was not read.
  nodes[3].inventory.mutable_gpus(1)->clear_hca_affinity();
  nodes[3].inventory.mutable_gpus(1)->clear_nearest_hca();
  const std::vector<NodePreflight> result = RunPreflight(nodes);
  EXPECT_TRUE(result[0].fit) << ::testing::PrintToString(result[0].reasons);
  // x8 of x16 is below its maximum whatever the speed.
  EXPECT_THAT(result[1].reasons,
              ElementsAre("GPU 2 (0000:3b:00.0) PCIe link x8, capable of x16",
                          HasSubstr("GPU 2 PCIe link width: x8 here, x16 on")));  // width known
  EXPECT_TRUE(result[2].fit) << ::testing::PrintToString(result[2].reasons);
  EXPECT_TRUE(result[3].fit) << ::testing::PrintToString(result[3].reasons);
  EXPECT_TRUE(result[4].fit);
}

// An idle GPU drops its link to 2.5 GT/s to save power: not a trained-down
// link, and not compared on speed; its width still is.
TEST(PreflightPcieTest, AnIdleGpuAtTheFirstGenerationIsNotJudgedOnSpeed) {
  std::vector<Node> nodes = LinkedFleet(5);
  SetLink(*nodes[0].inventory.mutable_gpus(0)->mutable_pcie_link(), 16, "2.5 GT/s PCIe");
  SetLink(*nodes[1].inventory.mutable_gpus(0)->mutable_pcie_link(), 4, "2.5 GT/s PCIe");
  const std::vector<NodePreflight> result = RunPreflight(nodes);
  EXPECT_TRUE(result[0].fit) << ::testing::PrintToString(result[0].reasons);
  EXPECT_THAT(result[1].reasons,
              ElementsAre("GPU 0 (0000:1b:00.0) PCIe link x4 2.5 GT/s, capable of x16 32.0 GT/s",
                          HasSubstr("GPU 0 PCIe link width: x4 here, x16 on")));
  // An HCA keeps its speed when idle: 2.5 GT/s is a link that trained down.
  SetLink(*nodes[3].inventory.mutable_hcas(0)->mutable_pcie_link(), 16, "2.5 GT/s PCIe");
  EXPECT_THAT(ReasonsOf(nodes, 3),
              ElementsAre(HasSubstr("HCA mlx5_0 (0000:1a:00.0) PCIe link x16 2.5 GT/s, capable "
                                    "of x16 32.0 GT/s"),
                          HasSubstr("HCA mlx5_0:1 PCIe link speed: 2.5 GT/s here")));
}

TEST(PreflightPcieTest, AnHcaWithTwoPortsIsNamedOnce) {
  std::vector<Node> nodes = LinkedFleet(3);
  Inventory& node = nodes[0].inventory;
  ebnccl::v1::HcaInfo second = node.hcas(7);
  second.set_port(2);
  *node.add_hcas() = second;
  for (Node& n : nodes) {
    if (&n.inventory != &node) *n.inventory.add_hcas() = second;
  }
  for (ebnccl::v1::HcaInfo& hca : *node.mutable_hcas()) {
    if (hca.name() == "mlx5_7") SetLink(*hca.mutable_pcie_link(), 8, "32.0 GT/s");
  }
  const std::vector<std::string> reasons = ReasonsOf(nodes, 0);
  ASSERT_FALSE(reasons.empty());
  EXPECT_EQ(reasons[0],
            "HCA mlx5_7 (0000:8a:00.0) PCIe link x8 32.0 GT/s, capable of x16 32.0 GT/s");
  EXPECT_THAT(reasons, ::testing::Contains(HasSubstr("HCA mlx5_7:2 PCIe link width: x8 here")));
  EXPECT_EQ(std::count_if(reasons.begin(), reasons.end(),
                          [](const std::string& r) { return r.find("capable of") != r.npos; }),
            1);
}

// The topology: a NIC under another switch, two GPUs' NICs swapped.
TEST(PreflightPcieTest, AnAffinityUnlikeTheFleetsNamesTheGpuAndBothHcas) {
  std::vector<Node> nodes = LinkedFleet(5);
  nodes[2].inventory.mutable_gpus(4)->set_hca_affinity("same NUMA node");
  nodes[3].inventory.mutable_gpus(0)->set_nearest_hca("mlx5_1");
  nodes[3].inventory.mutable_gpus(1)->set_nearest_hca("mlx5_0");
  EXPECT_THAT(ReasonsOf(nodes, 2),
              ElementsAre("GPU 4 nearest HCA: mlx5_4 (same NUMA node) here, mlx5_4 (same PCIe "
                          "switch) on the fleet's majority (4 of 5 nodes)"));
  EXPECT_THAT(ReasonsOf(nodes, 3),
              ElementsAre(HasSubstr("GPU 0 nearest HCA: mlx5_1 (same PCIe switch) here, mlx5_0 "
                                    "(same PCIe switch)"),
                          HasSubstr("GPU 1 nearest HCA: mlx5_0 (same PCIe switch) here, mlx5_1 "
                                    "(same PCIe switch)")));
}

TEST(PcieLinksTest, SpeedsAndTheirText) {
  EXPECT_EQ(PcieSpeedGts("32.0 GT/s PCIe"), 32.0);
  EXPECT_EQ(PcieSpeedGts("2.5 GT/s"), 2.5);
  EXPECT_EQ(PcieSpeedGts("Unknown"), 0);
  EXPECT_EQ(PcieSpeedGts(""), 0);
  EXPECT_EQ(PcieSpeedGts("fast GT/s"), 0);
  EXPECT_EQ(PcieSpeedGts("nan GT/s"), 0);
  EXPECT_EQ(PcieSpeedGts("1e9 GT/s"), 0);
  EXPECT_EQ(PcieSpeedGts(std::string(1000, '9') + " GT/s"), 0);
  EXPECT_EQ(PcieLinkText(16, std::string(1000, '9') + " GT/s"), "x16");
  EXPECT_EQ(PcieLinkText(16, "32.0 GT/s PCIe"), "x16 32.0 GT/s");
  EXPECT_EQ(PcieLinkText(16, "32.0 GT/s"), "x16 32.0 GT/s");
  EXPECT_EQ(PcieLinkText(0, "8.0 GT/s"), "8.0 GT/s");
  EXPECT_EQ(PcieLinkText(0, ""), "");
  ebnccl::v1::PcieLink idle;
  SetLink(idle, 16, "2.5 GT/s PCIe");
  EXPECT_EQ(CurrentPcieWidth(idle), "x16");
  EXPECT_EQ(CurrentPcieSpeed(idle, LinkOwner::kGpu), "");
  EXPECT_EQ(CurrentPcieSpeed(idle, LinkOwner::kHca), "2.5 GT/s");
  SetLink(idle, 0, "Unknown", 16, "2.5 GT/s");
  EXPECT_EQ(CurrentPcieWidth(idle), "");
  EXPECT_EQ(CurrentPcieSpeed(idle, LinkOwner::kGpu), "");
  // A first-generation device is not saving power: its speed is compared.
  SetLink(idle, 1, "2.5 GT/s", 1, "2.5 GT/s");
  EXPECT_EQ(CurrentPcieSpeed(idle, LinkOwner::kGpu), "2.5 GT/s");
}

}  // namespace
}  // namespace eb::validation
