// Issue 12 on fake sysfs trees built here: the GPU-HCA affinity (an
// A800-like node with mlx5_100..107 behind shared PCIe switches, and a
// 2-socket node where only NUMA decides), the HCA facts the inventory
// gains (firmware, NUMA node, bus id, physical state), and the port
// counters before and after a test (growth flagged, a flap seen).

#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "agent/core/pci_affinity.h"
#include "agent/core/port_counters.h"
#include "agent/host/infiniband_sysfs.h"
#include "agent/host/pci_topology.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testutil/fake_sysfs.h"

namespace eb::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::string Bus(int bus) { return absl::StrFormat("0000:%02x:00.0", bus); }

// Four PCIe switches, two per socket; each holds two GPUs and two HCAs on
// its own downstream ports, as on an 8-GPU A800/A100 board.
struct A800Node {
  explicit A800Node(const std::string& tag) : sysfs(tag) {
    const int bases[4] = {0x10, 0x40, 0x90, 0xc0};
    for (int s = 0; s < 4; ++s) {
      const int socket = s / 2;
      const std::string complex = socket == 0 ? "pci0000:00" : "pci0000:80";
      const std::string root_port =
          absl::StrFormat("0000:%02x:%02x.0", socket == 0 ? 0x00 : 0x80, s % 2 + 1);
      const std::string upstream = Bus(bases[s]);
      for (int slot = 0; slot < 4; ++slot) {
        const std::string downstream = absl::StrFormat("0000:%02x:%02x.0", bases[s] + 1, slot);
        const std::string device = Bus(bases[s] + 2 + slot);
        auto dir = sysfs.AddPciDevice({complex, root_port, upstream, downstream, device}, socket);
        if (slot < 2) {
          gpus.push_back(device);
        } else {
          // Registered out of order: the choice must not depend on it.
          hca_dirs.emplace_back(absl::StrFormat("mlx5_%d", 100 + 2 * s + slot - 2), dir);
        }
      }
    }
    for (auto it = hca_dirs.rbegin(); it != hca_dirs.rend(); ++it) {
      sysfs.AddHca(it->first, it->second);
      sysfs.SetPort(it->first, 1, "4: ACTIVE", "5: LinkUp");
      hcas.push_back(it->first);
    }
  }
  testing::FakeSysfs sysfs;
  std::vector<std::string> gpus;
  std::vector<std::pair<std::string, std::filesystem::path>> hca_dirs;
  std::vector<std::string> hcas;
};

TEST(GpuHcaAffinityTest, A800GpusGetTheHcaBehindTheirOwnSwitchOneEach) {
  A800Node node("a800");
  const PciTopology topology = ReadPciTopology(
      node.sysfs.pci().string(), node.sysfs.infiniband().string(), node.gpus, node.hcas);
  ASSERT_EQ(topology.gpus.size(), 8u);
  EXPECT_THAT(topology.gpus[0].bridges,
              ElementsAre("0000:00:01.0", "0000:10:00.0", "0000:11:00.0"));
  const std::vector<GpuAffinity> affinity = ComputeAffinity(topology);
  ASSERT_EQ(affinity.size(), 8u);
  for (int gpu = 0; gpu < 8; ++gpu) {
    SCOPED_TRACE(gpu);
    EXPECT_EQ(affinity[gpu].gpu_bus_id, node.gpus[gpu]);
    EXPECT_EQ(affinity[gpu].hca, absl::StrFormat("mlx5_%d", 100 + gpu));
    EXPECT_EQ(affinity[gpu].reason, kAffinitySwitch);
    EXPECT_EQ(affinity[gpu].numa_node, gpu < 4 ? 0 : 1);
  }

  // Into the inventory's GpuInfo, matched by bus id in any spelling.
  std::vector<ebnccl::v1::GpuInfo> gpus(2);
  gpus[0].set_index(0);
  gpus[0].set_pci_bus_id("00000000:10:00.0");  // not a GPU here: no answer
  gpus[1].set_index(3);
  gpus[1].set_pci_bus_id("00000000:43:00.0");  // NVML's form of GPU 3
  ApplyAffinity(affinity, gpus);
  EXPECT_EQ(gpus[0].nearest_hca(), "");
  EXPECT_EQ(gpus[0].numa_node(), -1);
  EXPECT_EQ(gpus[1].nearest_hca(), "mlx5_103");
  EXPECT_EQ(gpus[1].hca_affinity(), "same PCIe switch");
  EXPECT_EQ(gpus[1].numa_node(), 0);
}

TEST(GpuHcaAffinityTest, ConfiguringOnlySomeHcasFallsBackToTheNumaNode) {
  A800Node node("a800-some");
  // Only the second socket's HCAs are configured: the first socket's GPUs
  // share no switch and no NUMA node with them.
  const std::vector<GpuAffinity> affinity =
      ComputeAffinity(ReadPciTopology(node.sysfs.pci().string(), node.sysfs.infiniband().string(),
                                      node.gpus, {"mlx5_104", "mlx5_105", "mlx5_106", "mlx5_107"}));
  EXPECT_EQ(affinity[0].hca, "");
  EXPECT_EQ(affinity[0].reason, kAffinityNone);
  EXPECT_EQ(affinity[5].hca, "mlx5_105");
}

TEST(GpuHcaAffinityTest, TwoSocketsWithoutSwitchesOnlyNumaDecides) {
  testing::FakeSysfs sysfs("two-socket");
  std::vector<std::string> gpus;
  // Every device on its own root port: no bridge in common below the root
  // complex, so only the NUMA node relates a GPU to an HCA.
  for (int socket = 0; socket < 2; ++socket) {
    const std::string complex = socket == 0 ? "pci0000:00" : "pci0000:80";
    const int root_bus = socket == 0 ? 0x00 : 0x80;
    for (int i = 0; i < 4; ++i) {
      const std::string root_port = absl::StrFormat("0000:%02x:%02x.0", root_bus, i + 1);
      const std::string device = Bus(root_bus + 0x10 * (i + 1));
      auto dir = sysfs.AddPciDevice({complex, root_port, device}, socket);
      if (i < 2) {
        gpus.push_back(device);
      } else {
        sysfs.AddHca(absl::StrFormat("mlx5_%d", 2 * socket + i - 2), dir);
      }
    }
  }
  // A GPU the kernel puts on no NUMA node (-1) is near nothing.
  auto lone = sysfs.AddPciDevice({"pci0000:c0", "0000:c0:01.0", "0000:c1:00.0"}, -1);
  gpus.push_back("0000:c1:00.0");
  const std::vector<GpuAffinity> affinity =
      ComputeAffinity(ReadPciTopology(sysfs.pci().string(), sysfs.infiniband().string(), gpus,
                                      {"mlx5_3", "mlx5_2", "mlx5_1", "mlx5_0"}));
  ASSERT_EQ(affinity.size(), 5u);
  const char* expected[] = {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"};
  for (int gpu = 0; gpu < 4; ++gpu) {
    SCOPED_TRACE(gpu);
    EXPECT_EQ(affinity[gpu].hca, expected[gpu]);
    EXPECT_EQ(affinity[gpu].reason, kAffinityNuma);
  }
  EXPECT_EQ(affinity[4].hca, "");
  EXPECT_EQ(affinity[4].reason, kAffinityNone);
  EXPECT_EQ(affinity[4].numa_node, -1);
}

TEST(GpuHcaAffinityTest, AGpuSysfsCannotPlaceHasNoAnswerButKeepsItsId) {
  testing::FakeSysfs sysfs("unplaced");
  const std::vector<GpuAffinity> affinity = ComputeAffinity(ReadPciTopology(
      sysfs.pci().string(), sysfs.infiniband().string(), {"00000000:0A:00.0"}, {"mlx5_0"}));
  ASSERT_EQ(affinity.size(), 1u);
  EXPECT_EQ(affinity[0].gpu_bus_id, "0000:0a:00.0");
  EXPECT_EQ(affinity[0].reason, kAffinityNone);
}

TEST(HcaFactsTest, TheInventoryNamesFirmwareNumaNodeBusIdAndPhysicalState) {
  A800Node node("facts");
  const std::vector<ebnccl::v1::HcaInfo> hcas =
      ReportHcas({{"mlx5_103", 1}}, node.sysfs.infiniband().string());
  ASSERT_EQ(hcas.size(), 1u);
  EXPECT_EQ(hcas[0].fw_ver(), "28.39.1002");
  EXPECT_EQ(hcas[0].numa_node(), 0);
  EXPECT_EQ(hcas[0].pci_bus_id(), "0000:45:00.0");
  EXPECT_EQ(hcas[0].state(), "ACTIVE");
  EXPECT_EQ(hcas[0].phys_state(), "LinkUp");
  EXPECT_EQ(hcas[0].rate_gbps(), 200);
}

// Counters: a reading before, the tree advanced, a reading after.
class PortCountersTest : public ::testing::Test {
 protected:
  PortCountersTest() : sysfs_("counters") {
    sysfs_.AddHca("mlx5_100", {});
    sysfs_.AddHca("mlx5_101", {});
    for (const char* hca : {"mlx5_100", "mlx5_101"}) {
      sysfs_.SetPort(hca, 1, "4: ACTIVE", "5: LinkUp");
      sysfs_.SetCounter(hca, 1, "symbol_error", 3);
      sysfs_.SetCounter(hca, 1, "link_downed", 1);
      sysfs_.SetCounter(hca, 1, "port_rcv_errors", 0);
      sysfs_.SetCounter(hca, 1, "port_xmit_data", 1000);
      sysfs_.SetCounter(hca, 1, "port_xmit_wait", 50);
      sysfs_.SetCounter(hca, 1, "out_of_sequence", 7, /*hw=*/true);
    }
  }
  std::vector<PortSnapshot> Read() {
    return ReadPortSnapshots({{"mlx5_100", 1}, {"mlx5_101", 0}, {"mlx5_107", 1}},
                             sysfs_.infiniband().string());
  }
  testing::FakeSysfs sysfs_;
};

TEST_F(PortCountersTest, GrowingErrorCountersAreFlaggedAndTrafficIsNot) {
  const std::vector<PortSnapshot> before = Read();
  ASSERT_EQ(before.size(), 3u);
  EXPECT_EQ(before[0].counters.at("out_of_sequence"), 7u);  // hw_counters
  EXPECT_EQ(before[2].error.substr(0, 21), "HCA mlx5_107 does not");
  sysfs_.SetCounter("mlx5_100", 1, "symbol_error", 15);
  sysfs_.SetCounter("mlx5_100", 1, "port_xmit_data", 9000);
  sysfs_.SetCounter("mlx5_100", 1, "port_xmit_wait", 80);
  sysfs_.SetCounter("mlx5_101", 1, "port_xmit_data", 500);  // reset: not growth
  const std::vector<ebnccl::v1::PortEvidence> ports = DiffPorts("a800-0", before, Read());
  ASSERT_EQ(ports.size(), 3u);
  EXPECT_EQ(ports[0].node_name(), "a800-0");
  EXPECT_EQ(ports[0].hca(), "mlx5_100");
  EXPECT_THAT(ports[0].grown_errors(), ElementsAre("symbol_error +12"));
  EXPECT_FALSE(ports[0].link_flapped());
  bool saw_data = false;
  for (const ebnccl::v1::PortCounter& counter : ports[0].counters()) {
    if (counter.name() != "port_xmit_data") continue;
    saw_data = true;
    EXPECT_EQ(counter.delta(), 8000u);
    EXPECT_FALSE(counter.error_counter());
  }
  EXPECT_TRUE(saw_data);
  EXPECT_THAT(ports[1].grown_errors(), IsEmpty());
  for (const ebnccl::v1::PortCounter& counter : ports[1].counters()) {
    if (counter.name() == "port_xmit_data") {
      EXPECT_EQ(counter.delta(), 0u);
    }
  }
  EXPECT_FALSE(ports[2].error().empty());
}

TEST_F(PortCountersTest, AStateChangeOrALinkDownedIncrementIsAFlap) {
  const std::vector<PortSnapshot> before = Read();
  // mlx5_100 ends down; mlx5_101 went down and came back (same state at
  // both ends, link_downed grew).
  sysfs_.SetPort("mlx5_100", 1, "1: DOWN", "3: Disabled");
  sysfs_.SetCounter("mlx5_101", 1, "link_downed", 2);
  const std::vector<ebnccl::v1::PortEvidence> ports = DiffPorts("a800-1", before, Read());
  ASSERT_EQ(ports.size(), 3u);
  EXPECT_TRUE(ports[0].link_flapped());
  EXPECT_EQ(ports[0].start().state(), "ACTIVE");
  EXPECT_EQ(ports[0].end().state(), "DOWN");
  EXPECT_EQ(ports[0].end().phys_state(), "Disabled");
  EXPECT_TRUE(ports[1].link_flapped());
  EXPECT_THAT(ports[1].grown_errors(), ElementsAre("link_downed +1"));
  EXPECT_EQ(ports[1].end().state(), "ACTIVE");
}

TEST(PortCounterNamesTest, ErrorCountersAreTheIssuesList) {
  for (const char* name : {"symbol_error", "link_error_recovery", "link_downed", "port_rcv_errors",
                           "port_xmit_discards", "port_rcv_remote_physical_errors",
                           "local_link_integrity_errors", "excessive_buffer_overrun_errors"}) {
    EXPECT_TRUE(IsErrorCounter(name)) << name;
  }
  for (const char* name : {"port_xmit_wait", "port_xmit_data", "port_rcv_data", "port_xmit_packets",
                           "port_rcv_packets"}) {
    EXPECT_FALSE(IsErrorCounter(name)) << name;
  }
}

}  // namespace
}  // namespace eb::agent
