// GPU discovery from a fake /proc/driver/nvidia tree and a fake NVML: no
// CUDA, no driver, no libnvidia-ml.

#include "agent/core/gpu_discovery.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "agent/host/nvidia_driver.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr int64_t kH200Bytes = int64_t{143771} << 20;

// Answers what the test set, and counts the queries.
class FakeNvml : public GpuDetailsSource {
 public:
  absl::StatusOr<NvmlReport> Query() override {
    ++queries;
    return answer;
  }
  absl::StatusOr<NvmlReport> answer = NvmlReport{};
  int queries = 0;
};

NvmlGpu H200(const std::string& bus_id) { return NvmlGpu{bus_id, "NVIDIA H200", kH200Bytes}; }

// A driver's `information` file, as on a real H100/H200 node.
std::string Information(const std::string& model, const std::string& bus) {
  return absl::StrCat(
      "Model: \t\t ", model, "\n", "IRQ:   \t\t 183\n",
      "GPU UUID: \t GPU-7d8c0f4e-1c2b-4f3a-9e8d-0123456789ab\n", "Video BIOS: \t 96.00.99.00.01\n",
      "Bus Type: \t PCIe\n", "DMA Size: \t 52 bits\n", "DMA Mask: \t 0xfffffffffffff\n",
      "Bus Location: \t ", bus, "\n", "Device Minor: \t 0\n", "GPU Excluded:\t No\n");
}

class GpuDiscoveryTest : public ::testing::Test {
 protected:
  GpuDiscoveryTest() {
    std::string dir_template = absl::StrCat(::testing::TempDir(), "/eb_gpus_XXXXXX");
    EXPECT_NE(mkdtemp(dir_template.data()), nullptr);
    root_ = dir_template;
  }
  ~GpuDiscoveryTest() override {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }

  void Write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  void AddGpu(const std::string& dir_name, const std::string& information) {
    Write(root_ / "gpus" / dir_name / "information", information);
  }

  fs::path root_;
};

TEST_F(GpuDiscoveryTest, ListsGpusInBusOrderWithNamesAndBusIds) {
  // Created out of order: the index must follow the bus, not the directory
  // listing.
  AddGpu("0000:9a:00.0", Information("NVIDIA H200", "0000:9a:00.0"));
  AddGpu("0000:18:00.0", Information("NVIDIA H100 80GB HBM3", "0000:18:00.0"));
  const auto gpus = DiscoverGpus((root_ / "gpus").string());
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].index(), 0);
  EXPECT_EQ(gpus[0].name(), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpus[0].pci_bus_id(), "0000:18:00.0");
  EXPECT_EQ(gpus[0].memory_bytes(), 0);
  EXPECT_EQ(gpus[1].index(), 1);
  EXPECT_EQ(gpus[1].name(), "NVIDIA H200");
  EXPECT_EQ(gpus[1].pci_bus_id(), "0000:9a:00.0");
}

TEST_F(GpuDiscoveryTest, BusLocationLineWinsOverTheDirectoryName) {
  AddGpu("gpu-a", Information("NVIDIA A100-SXM4-80GB", "0000:07:00.0"));
  const auto gpus = DiscoverGpus((root_ / "gpus").string());
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].pci_bus_id(), "0000:07:00.0");
  EXPECT_EQ(gpus[0].name(), "NVIDIA A100-SXM4-80GB");
}

TEST_F(GpuDiscoveryTest, UnreadableInformationKeepsTheDirectoryNameAsBusId) {
  fs::create_directories(root_ / "gpus" / "0000:3b:00.0");
  const auto gpus = DiscoverGpus((root_ / "gpus").string());
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].index(), 0);
  EXPECT_EQ(gpus[0].pci_bus_id(), "0000:3b:00.0");
  EXPECT_EQ(gpus[0].name(), "");
}

TEST_F(GpuDiscoveryTest, PlainFilesAreNotGpus) {
  AddGpu("0000:18:00.0", Information("NVIDIA H200", "0000:18:00.0"));
  Write(root_ / "gpus" / "README", "not a gpu\n");
  EXPECT_EQ(DiscoverGpus((root_ / "gpus").string()).size(), 1u);
}

TEST_F(GpuDiscoveryTest, MissingOrEmptyDirectoryMeansNoGpus) {
  EXPECT_THAT(DiscoverGpus((root_ / "does-not-exist").string()), IsEmpty());
  fs::create_directories(root_ / "empty");
  EXPECT_THAT(DiscoverGpus((root_ / "empty").string()), IsEmpty());
}

TEST_F(GpuDiscoveryTest, BusIdsAreNormalised) {
  AddGpu("00000000:9A:00.0", "Model: \t\t NVIDIA H200\n");
  const auto gpus = DiscoverGpus((root_ / "gpus").string());
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].pci_bus_id(), "0000:9a:00.0");
}

TEST_F(GpuDiscoveryTest, NvmlFillsMemoryMatchedByBusIdWhateverItsSpelling) {
  AddGpu("0000:18:00.0", Information("NVIDIA H200", "0000:18:00.0"));
  AddGpu("0000:9a:00.0", Information("NVIDIA H200", "0000:9a:00.0"));
  FakeNvml nvml;
  // NVML's own order and spelling: 8-digit domain, upper case.
  NvmlGpu second = H200("00000000:9A:00.0");
  second.memory_bytes = 2 * kH200Bytes;
  nvml.answer = NvmlReport{{second, H200("00000000:18:00.0")}, {}};
  const DiscoveredGpus found = DiscoverGpusWithDetails(nvml, (root_ / "gpus").string());
  ASSERT_EQ(found.gpus.size(), 2u);
  EXPECT_EQ(found.gpus[0].index(), 0);
  EXPECT_EQ(found.gpus[0].pci_bus_id(), "0000:18:00.0");
  EXPECT_EQ(found.gpus[0].memory_bytes(), kH200Bytes);
  EXPECT_EQ(found.gpus[1].pci_bus_id(), "0000:9a:00.0");
  EXPECT_EQ(found.gpus[1].memory_bytes(), 2 * kH200Bytes);
  EXPECT_EQ(found.nvml_note, "");
}

TEST_F(GpuDiscoveryTest, NvmlNameWinsButAnEmptyOneKeepsTheDrivers) {
  AddGpu("0000:18:00.0", Information("NVIDIA H200 (proc)", "0000:18:00.0"));
  AddGpu("0000:19:00.0", Information("NVIDIA H200 (proc)", "0000:19:00.0"));
  FakeNvml nvml;
  NvmlGpu nameless = H200("0000:19:00.0");
  nameless.name.clear();
  nvml.answer = NvmlReport{{H200("0000:18:00.0"), nameless}, {}};
  const DiscoveredGpus found = DiscoverGpusWithDetails(nvml, (root_ / "gpus").string());
  EXPECT_EQ(found.gpus[0].name(), "NVIDIA H200");
  EXPECT_EQ(found.gpus[1].name(), "NVIDIA H200 (proc)");
}

TEST_F(GpuDiscoveryTest, WithoutNvmlTheProcListStandsWithMemoryZeroAndANote) {
  AddGpu("0000:18:00.0", Information("NVIDIA H200", "0000:18:00.0"));
  FakeNvml nvml;
  nvml.answer = absl::UnavailableError("libnvidia-ml.so.1 cannot be loaded (not found)");
  const DiscoveredGpus found = DiscoverGpusWithDetails(nvml, (root_ / "gpus").string());
  ASSERT_EQ(found.gpus.size(), 1u);
  EXPECT_EQ(found.gpus[0].name(), "NVIDIA H200");
  EXPECT_EQ(found.gpus[0].pci_bus_id(), "0000:18:00.0");
  EXPECT_EQ(found.gpus[0].memory_bytes(), 0);
  EXPECT_EQ(found.nvml_note, "GPU memory unknown: libnvidia-ml.so.1 cannot be loaded (not found)");
}

TEST_F(GpuDiscoveryTest, NvmlIsNotAskedWithoutGpus) {
  FakeNvml nvml;
  const DiscoveredGpus found = DiscoverGpusWithDetails(nvml, (root_ / "none").string());
  EXPECT_THAT(found.gpus, IsEmpty());
  EXPECT_EQ(found.nvml_note, "");
  EXPECT_EQ(nvml.queries, 0);
}

TEST_F(GpuDiscoveryTest, UnmatchedGpusOnEitherSideAreNoted) {
  AddGpu("0000:18:00.0", Information("NVIDIA H200", "0000:18:00.0"));
  AddGpu("0000:19:00.0", Information("NVIDIA H200", "0000:19:00.0"));
  FakeNvml nvml;
  nvml.answer = NvmlReport{{H200("00000000:18:00.0"), H200("00000000:CC:00.0")},
                           {"NVML device 2: nvmlDeviceGetHandleByIndex_v2: GPU is lost (15)"}};
  const DiscoveredGpus found = DiscoverGpusWithDetails(nvml, (root_ / "gpus").string());
  EXPECT_EQ(found.gpus[0].memory_bytes(), kH200Bytes);
  EXPECT_EQ(found.gpus[1].memory_bytes(), 0);
  EXPECT_THAT(found.nvml_note, HasSubstr("GPU is lost"));
  EXPECT_THAT(found.nvml_note, HasSubstr("NVML does not describe GPU 1 (0000:19:00.0)"));
  EXPECT_THAT(found.nvml_note, HasSubstr("NVML lists GPU 00000000:CC:00.0"));
}

TEST_F(GpuDiscoveryTest, OneNvmlGpuFillsOneEntryOnly) {
  // A driver listing one GPU twice (two spellings) must not get the memory
  // of one NVML GPU twice.
  std::vector<ebnccl::v1::GpuInfo> gpus(2);
  gpus[0].set_pci_bus_id("0000:18:00.0");
  gpus[1].set_pci_bus_id("00000000:18:00.0");
  const std::vector<std::string> notes =
      ApplyNvmlDetails(NvmlReport{{H200("0000:18:00.0")}, {}}, &gpus);
  EXPECT_EQ(gpus[0].memory_bytes(), kH200Bytes);
  EXPECT_EQ(gpus[1].memory_bytes(), 0);
  EXPECT_EQ(notes.size(), 1u);
}

TEST(SelectGpusTest, PicksTheOwnedIndicesInOrderAndSkipsMissingOnes) {
  std::vector<ebnccl::v1::GpuInfo> all(4);
  for (int i = 0; i < 4; ++i) all[i].set_index(i);
  std::vector<int> picked;
  for (const auto& gpu : SelectGpus(all, {3, 1, 9})) picked.push_back(gpu.index());
  EXPECT_THAT(picked, ElementsAre(3, 1));
  EXPECT_EQ(SelectGpus(all, {}).size(), 4u);
}

TEST(CheckGpuIndicesTest, NamesTheFirstIndexTheHostLacks) {
  EXPECT_TRUE(CheckGpuIndices({}, 0).ok());
  EXPECT_TRUE(CheckGpuIndices({0, 3}, 4).ok());
  const absl::Status missing = CheckGpuIndices({1, 4, 7}, 4);
  EXPECT_EQ(missing.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(missing.message(), "GPU 4 does not exist (this host has 4)");
  EXPECT_EQ(CheckGpuIndices({-1}, 4).message(), "GPU -1 does not exist (this host has 4)");
}

TEST_F(GpuDiscoveryTest, DriverVersionFromARealisticVersionFile) {
  Write(root_ / "version",
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 07:09:20 UTC "
        "2025\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
  EXPECT_EQ(DriverVersion((root_ / "version").string()), "580.65.06");
}

TEST_F(GpuDiscoveryTest, DriverVersionOfAnOpenKernelModule) {
  Write(root_ / "version",
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.127.05  Release Build  "
        "(dvs-builder@U16-I3-B03-4-3)  Tue Oct  8 03:22:07 UTC 2024\n");
  EXPECT_EQ(DriverVersion((root_ / "version").string()), "550.127.05");
}

TEST_F(GpuDiscoveryTest, DriverVersionWithTwoComponents) {
  Write(root_ / "version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104  Sat Aug\n");
  EXPECT_EQ(DriverVersion((root_ / "version").string()), "535.104");
}

TEST_F(GpuDiscoveryTest, DriverVersionIsEmptyWithoutADriver) {
  EXPECT_EQ(DriverVersion((root_ / "missing").string()), "");
  Write(root_ / "empty", "");
  EXPECT_EQ(DriverVersion((root_ / "empty").string()), "");
  Write(root_ / "garbage", "no version here\n");
  EXPECT_EQ(DriverVersion((root_ / "garbage").string()), "");
}

}  // namespace
}  // namespace eb::agent
