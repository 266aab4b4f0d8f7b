// Issue 29, item 5: the PCIe links of GPUs and HCAs and the width of HCA
// ports, parsed (agent/core/pcie_link.h) and read from fake sysfs trees
// (agent/host/pci_topology.h, infiniband_sysfs.h) through the one bounded
// reader (agent/host/sysfs_file.h): healthy links, links that trained
// down, missing files (unknown), garbage and oversized files (unknown, and
// an error naming the file).

#include <sys/stat.h>

#include <string>
#include <vector>

#include "agent/core/pcie_link.h"
#include "agent/host/infiniband_sysfs.h"
#include "agent/host/pci_topology.h"
#include "agent/host/sysfs_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testutil/fake_sysfs.h"

namespace eb::agent {
namespace {

using testing::FakeSysfs;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(PcieLinkParseTest, SpeedsAsEveryKernelWritesThem) {
  EXPECT_EQ(*ParsePcieSpeed("32.0 GT/s PCIe"), "32.0 GT/s PCIe");
  EXPECT_EQ(*ParsePcieSpeed("16.0 GT/s"), "16.0 GT/s");
  EXPECT_EQ(*ParsePcieSpeed("2.5 GT/s PCIe\n"), "2.5 GT/s PCIe");
  EXPECT_EQ(*ParsePcieSpeed("Unknown"), "");
  EXPECT_EQ(*ParsePcieSpeed("Unknown speed"), "");
  for (const char* bad : {"", "fast", "32.0", "32.0 Gb/s", "GT/s 32", ".5 GT/s", "1.2.3 GT/s",
                          "32.0 GT/s \x01", "-8.0 GT/s"}) {
    EXPECT_FALSE(ParsePcieSpeed(bad).ok()) << bad;
  }
}

TEST(PcieLinkParseTest, WidthsAreLaneCounts) {
  EXPECT_EQ(*ParsePcieWidth("16"), 16u);
  EXPECT_EQ(*ParsePcieWidth("8\n"), 8u);
  EXPECT_EQ(*ParsePcieWidth("0"), 0u);  // unknown (a link that is down)
  for (const char* bad : {"", "x16", "+4", "-1", "33", "160", "16 lanes", "abc"}) {
    EXPECT_FALSE(ParsePcieWidth(bad).ok()) << bad;
  }
}

TEST(PcieLinkParseTest, PortWidthFromTheRate) {
  EXPECT_EQ(*ParsePortWidth("400 Gb/sec (4X NDR)"), 4u);
  EXPECT_EQ(*ParsePortWidth("200 Gb/sec (2X NDR)"), 2u);
  EXPECT_EQ(*ParsePortWidth("25 Gb/sec (1X EDR)"), 1u);
  EXPECT_EQ(*ParsePortWidth("300 Gb/sec (12X EDR)"), 12u);
  EXPECT_EQ(*ParsePortWidth("100 Gb/sec"), 0u);  // names no width
  EXPECT_EQ(*ParsePortWidth(""), 0u);
  for (const char* bad : {"400 Gb/sec (NDR)", "400 Gb/sec (3X NDR)", "400 Gb/sec (XX)",
                          "400 Gb/sec (", "400 Gb/sec (4x NDR)"}) {
    EXPECT_FALSE(ParsePortWidth(bad).ok()) << bad;
  }
}

// One GPU and one HCA, each on its own root port.
struct LinkNode {
  explicit LinkNode(const std::string& tag) : sysfs(tag) {
    gpu_dir = sysfs.AddPciDevice({"pci0000:00", "0000:00:01.0", kGpu}, 0);
    hca_dir = sysfs.AddPciDevice({"pci0000:00", "0000:00:02.0", "0000:4b:00.0"}, 0);
    sysfs.AddHca("mlx5_3", hca_dir);
    sysfs.SetPort("mlx5_3", 1, "4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)");
  }
  ebnccl::v1::PcieLink GpuLink() {
    const PciTopology topology =
        ReadPciTopology(sysfs.pci().string(), sysfs.infiniband().string(), {kGpu}, {});
    std::vector<ebnccl::v1::GpuInfo> gpus(1);
    gpus[0].set_pci_bus_id(kGpu);
    ApplyPcieLinks(topology, gpus);
    return gpus[0].pcie_link();
  }
  ebnccl::v1::HcaInfo Hca() {
    const std::vector<ebnccl::v1::HcaInfo> hcas =
        ReportHcas({{"mlx5_3", 1}}, sysfs.infiniband().string());
    return hcas.at(0);
  }
  static constexpr char kGpu[] = "0000:1b:00.0";
  FakeSysfs sysfs;
  std::filesystem::path gpu_dir, hca_dir;
};

TEST(PcieLinkSysfsTest, LinksAtTheirMaximumAreReadAsWritten) {
  LinkNode node("pcie-healthy");
  FakeSysfs::SetPcieLink(node.gpu_dir, "32.0 GT/s PCIe", "16", "32.0 GT/s PCIe", "16");
  FakeSysfs::SetPcieLink(node.hca_dir, "32.0 GT/s PCIe", "16", "32.0 GT/s PCIe", "16");
  const ebnccl::v1::PcieLink gpu = node.GpuLink();
  EXPECT_EQ(gpu.current_speed(), "32.0 GT/s PCIe");
  EXPECT_EQ(gpu.current_width(), 16u);
  EXPECT_EQ(gpu.max_speed(), "32.0 GT/s PCIe");
  EXPECT_EQ(gpu.max_width(), 16u);
  EXPECT_THAT(gpu.error(), IsEmpty());
  const ebnccl::v1::HcaInfo hca = node.Hca();
  EXPECT_EQ(hca.pcie_link().current_width(), 16u);
  EXPECT_EQ(hca.pcie_link().max_speed(), "32.0 GT/s PCIe");
  EXPECT_EQ(hca.link_width(), 4u);
  EXPECT_EQ(hca.rate_gbps(), 400);
  EXPECT_THAT(hca.rate_error(), IsEmpty());
}

TEST(PcieLinkSysfsTest, ATrainedDownLinkReadsBelowItsMaximum) {
  LinkNode node("pcie-down");
  FakeSysfs::SetPcieLink(node.gpu_dir, "16.0 GT/s", "8", "32.0 GT/s", "16");
  FakeSysfs::SetPcieLink(node.hca_dir, "8.0 GT/s PCIe", "4", "32.0 GT/s PCIe", "16");
  node.sysfs.SetPort("mlx5_3", 1, "4: ACTIVE", "5: LinkUp", "200 Gb/sec (2X NDR)");
  const ebnccl::v1::PcieLink gpu = node.GpuLink();
  EXPECT_EQ(gpu.current_speed(), "16.0 GT/s");
  EXPECT_EQ(gpu.current_width(), 8u);
  EXPECT_EQ(gpu.max_width(), 16u);
  const ebnccl::v1::HcaInfo hca = node.Hca();
  EXPECT_EQ(hca.pcie_link().current_speed(), "8.0 GT/s PCIe");
  EXPECT_EQ(hca.pcie_link().current_width(), 4u);
  EXPECT_EQ(hca.link_width(), 2u);
  EXPECT_EQ(hca.rate_gbps(), 200);
}

TEST(PcieLinkSysfsTest, MissingFilesAreUnknownNotAnError) {
  LinkNode node("pcie-missing");
  FakeSysfs::SetPcieLink(node.hca_dir, "", "16", "", "");  // only the current width
  node.sysfs.SetPort("mlx5_3", 1, "4: ACTIVE", "5: LinkUp", "100 Gb/sec");
  // No file at all: no link in the GPU's inventory.
  const ebnccl::v1::PcieLink gpu = node.GpuLink();
  EXPECT_EQ(gpu.ByteSizeLong(), 0u);
  const ebnccl::v1::HcaInfo hca = node.Hca();
  EXPECT_EQ(hca.pcie_link().current_width(), 16u);
  EXPECT_THAT(hca.pcie_link().current_speed(), IsEmpty());
  EXPECT_EQ(hca.pcie_link().max_width(), 0u);
  EXPECT_THAT(hca.pcie_link().error(), IsEmpty());
  EXPECT_EQ(hca.link_width(), 0u);  // the rate names no width
  EXPECT_THAT(hca.rate_error(), IsEmpty());
  // A GPU sysfs does not place: nothing, and no crash.
  std::vector<ebnccl::v1::GpuInfo> gpus(1);
  gpus[0].set_pci_bus_id("0000:ee:00.0");
  ApplyPcieLinks(ReadPciTopology(node.sysfs.pci().string(), "", {"0000:ee:00.0"}, {}), gpus);
  EXPECT_FALSE(gpus[0].has_pcie_link());
}

TEST(PcieLinkSysfsTest, GarbageAndOversizedFilesAreUnknownWithAnErrorNamingTheFile) {
  LinkNode node("pcie-garbage");
  FakeSysfs::SetPcieLink(node.gpu_dir, "32.0 GT/s PCIe", "16", "32.0 GT/s PCIe", "16");
  FakeSysfs::WriteFile(node.gpu_dir / "current_link_width", "sixteen\n");
  FakeSysfs::WriteFile(node.gpu_dir / "max_link_speed", std::string(1 << 20, '3'));
  FakeSysfs::WriteFile(node.hca_dir / "current_link_speed", std::string("\x01\x02\xff", 3));
  FakeSysfs::WriteFile(node.hca_dir / "max_link_width", std::string(kMaxSysfsValueBytes + 1, '1'));
  node.sysfs.SetPort("mlx5_3", 1, "4: ACTIVE", "5: LinkUp", "400 Gb/sec (wide NDR)");
  const ebnccl::v1::PcieLink gpu = node.GpuLink();
  EXPECT_EQ(gpu.current_speed(), "32.0 GT/s PCIe");  // the good files still count
  EXPECT_EQ(gpu.current_width(), 0u);
  EXPECT_THAT(gpu.max_speed(), IsEmpty());
  EXPECT_EQ(gpu.max_width(), 16u);
  EXPECT_THAT(gpu.error(), HasSubstr((node.gpu_dir / "current_link_width").string() +
                                     ": 'sixteen' is not a lane count"));
  EXPECT_THAT(gpu.error(), HasSubstr((node.gpu_dir / "max_link_speed").string() +
                                     ": file is larger than the limit of 4096 bytes"));
  const ebnccl::v1::HcaInfo hca = node.Hca();
  EXPECT_THAT(hca.pcie_link().current_speed(), IsEmpty());
  EXPECT_EQ(hca.pcie_link().max_width(), 0u);
  EXPECT_THAT(hca.pcie_link().error(), HasSubstr("current_link_speed: '"));
  EXPECT_THAT(hca.pcie_link().error(),
              HasSubstr("max_link_width: file is larger than the limit of 4096 bytes"));
  EXPECT_EQ(hca.link_width(), 0u);
  EXPECT_EQ(hca.rate_gbps(), 400);
  EXPECT_THAT(hca.rate_error(), HasSubstr("ports/1/rate: '400 Gb/sec (wide NDR)' does not name"));
}

TEST(SysfsFileTest, ReadsOneBoundedLineAndRefusesWhatIsNotAFile) {
  FakeSysfs sysfs("sysfs-file");
  const std::filesystem::path dir = sysfs.pci();
  FakeSysfs::WriteFile(dir / "value", "  28.39.1002 \nsecond line\n");
  EXPECT_EQ(*ReadSysfsValue((dir / "value").string()), "28.39.1002");
  FakeSysfs::WriteFile(dir / "exact", std::string(16, 'a'));
  EXPECT_EQ(ReadSysfsValue((dir / "exact").string(), 16)->size(), 16u);
  EXPECT_EQ(ReadSysfsValue((dir / "exact").string(), 15).status().code(),
            absl::StatusCode::kOutOfRange);
  EXPECT_EQ(ReadSysfsValue((dir / "absent").string()).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ReadSysfsValue(dir.string()).status().code(),
            absl::StatusCode::kFailedPrecondition);  // a directory
  // A FIFO with no writer: refused at once, not waited on.
  const std::string fifo = (dir / "fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const absl::StatusOr<std::string> value = ReadSysfsValue(fifo);
  EXPECT_EQ(value.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(value.status().message(), HasSubstr(fifo));
  EXPECT_EQ(ReadSysfsValueOrEmpty(fifo), "");
}

}  // namespace
}  // namespace eb::agent
