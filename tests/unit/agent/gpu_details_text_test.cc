// The text the agent's GPU-details child prints and the daemon parses
// (agent/core/gpu_details_text.h): a round trip, NVML's failure, and what a
// broken or hostile child could print.

#include "agent/core/gpu_details_text.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(GpuDetailsTextTest, AReportSurvivesTheTripThroughText) {
  NvmlReport report;
  report.gpus.push_back({"00000000:18:00.0", "NVIDIA H200", 150'754'820'096});
  report.gpus.push_back({"00000000:2A:00.0", "NVIDIA\tH200\nNVL", 0});
  report.problems.push_back("GPU 3: nvmlDeviceGetMemoryInfo: Unknown Error");
  const absl::StatusOr<NvmlReport> back = ParseNvmlReportText(FormatNvmlReport(report));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->gpus.size(), 2u);
  EXPECT_EQ(back->gpus[0].pci_bus_id, "00000000:18:00.0");
  EXPECT_EQ(back->gpus[0].name, "NVIDIA H200");
  EXPECT_EQ(back->gpus[0].memory_bytes, 150'754'820'096);
  // Tabs and line breaks in a field cannot break the format.
  EXPECT_EQ(back->gpus[1].name, "NVIDIA H200 NVL");
  EXPECT_THAT(back->problems, ElementsAre("GPU 3: nvmlDeviceGetMemoryInfo: Unknown Error"));
}

TEST(GpuDetailsTextTest, NoGpuIsAnEmptyReport) {
  const absl::StatusOr<NvmlReport> back = ParseNvmlReportText(FormatNvmlReport(NvmlReport{}));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->gpus.empty());
  EXPECT_TRUE(back->problems.empty());
}

TEST(GpuDetailsTextTest, NvmlsFailureComesBackAsUnavailableWithItsMessage) {
  const std::string text = FormatNvmlReport(absl::UnavailableError(
      "libnvidia-ml.so.1 cannot be loaded (libnvidia-ml.so.1: cannot open shared object file)"));
  const absl::StatusOr<NvmlReport> back = ParseNvmlReportText(text);
  EXPECT_EQ(back.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(back.status().message(),
            "libnvidia-ml.so.1 cannot be loaded (libnvidia-ml.so.1: cannot open shared object "
            "file)");
}

TEST(GpuDetailsTextTest, AnythingElseIsRefusedNamingTheLine) {
  for (const std::string text :
       {"gpu\t-1\t00000000:18:00.0\tH200\n", "gpu\tlots\t00000000:18:00.0\tH200\n",
        "gpu\t1\t00000000:18:00.0\n", "gpu\t99999999999999999999999\tx\ty\n", "hello\n",
        "problem\n", "gpu\t1\tbus\tname\nproblem\ta\tb\n"}) {
    const absl::StatusOr<NvmlReport> back = ParseNvmlReportText(text);
    EXPECT_EQ(back.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(std::string(back.status().message()), HasSubstr("GPU details line")) << text;
  }
}

TEST(GpuDetailsTextTest, SizesAreBounded) {
  std::string many;
  for (size_t i = 0; i <= kMaxGpuDetailLines; ++i) many += "problem\tx\n";
  EXPECT_THAT(std::string(ParseNvmlReportText(many).status().message()),
              HasSubstr("more than 1024 lines"));
  const std::string long_line = "problem\t" + std::string(kMaxGpuDetailLineBytes, 'x') + "\n";
  EXPECT_THAT(std::string(ParseNvmlReportText(long_line).status().message()),
              HasSubstr("longer than 1024 bytes"));
}

}  // namespace
}  // namespace eb::agent
