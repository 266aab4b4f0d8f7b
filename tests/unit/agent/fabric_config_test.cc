// The agent's HCA configuration against a fake /sys/class/infiniband tree.

#include "agent/core/fabric_config.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "agent/host/infiniband_sysfs.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

class FabricConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("eb-ib-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void AddPort(const std::string& hca, int port, const std::string& state, const std::string& rate,
               const std::string& link_layer) {
    const fs::path dir = root_ / hca / "ports" / std::to_string(port);
    fs::create_directories(dir);
    std::ofstream(dir / "state") << state << "\n";
    std::ofstream(dir / "rate") << rate << "\n";
    std::ofstream(dir / "link_layer") << link_layer << "\n";
  }

  fs::path root_;
};

TEST(ParseHcaListTest, AcceptsNamesPortsAndTheExactPrefix) {
  auto hcas = ParseHcaList("=mlx5_100, mlx5_101:1");
  ASSERT_TRUE(hcas.ok()) << hcas.status();
  ASSERT_EQ(hcas->size(), 2u);
  EXPECT_EQ((*hcas)[0].name, "mlx5_100");
  EXPECT_EQ((*hcas)[0].port, 0);
  EXPECT_EQ((*hcas)[1].name, "mlx5_101");
  EXPECT_EQ((*hcas)[1].port, 1);
}

TEST(ParseHcaListTest, RefusesExclusionBadPortsAndEmptyLists) {
  for (const char* bad :
       {"^mlx5_0", "mlx5_0:x", "mlx5_0:0", "mlx5_0:1:2", "", ",", "a/b", "a,=b", "a,^b", "a=b"}) {
    auto hcas = ParseHcaList(bad);
    EXPECT_FALSE(hcas.ok()) << bad;
    EXPECT_THAT(std::string(hcas.status().message()), HasSubstr("--ib-hca")) << bad;
  }
}

TEST(NcclIbHcaValueTest, AlwaysUsesExactMatch) {
  // Without '=', NCCL treats mlx5_1 as a prefix that also matches mlx5_10..19.
  EXPECT_EQ(NcclIbHcaValue({{"mlx5_1", 0}, {"mlx5_100", 1}}), "=mlx5_1,mlx5_100:1");
}

TEST_F(FabricConfigTest, ReadsStateRateAndLinkLayerOfEveryPort) {
  AddPort("mlx5_100", 1, "4: ACTIVE", "400 Gb/sec (4X NDR)", "InfiniBand");
  AddPort("mlx5_101", 1, "1: DOWN", "200 Gb/sec (4X HDR)", "Ethernet");
  auto hcas = CheckHcas({{"mlx5_100", 0}, {"mlx5_101", 1}}, root_.string());
  ASSERT_TRUE(hcas.ok()) << hcas.status();
  ASSERT_EQ(hcas->size(), 2u);
  EXPECT_EQ((*hcas)[0].state(), "ACTIVE");
  EXPECT_EQ((*hcas)[0].rate_gbps(), 400);
  EXPECT_EQ((*hcas)[0].link_layer(), "InfiniBand");
  EXPECT_EQ((*hcas)[1].state(), "DOWN");
  EXPECT_EQ((*hcas)[1].link_layer(), "Ethernet");
  const auto warnings = HcaWarnings(*hcas);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("mlx5_101 port 1 is DOWN"));
}

TEST_F(FabricConfigTest, MissingHcaIsAnErrorListingThePresentOnes) {
  AddPort("mlx5_0", 1, "4: ACTIVE", "100 Gb/sec", "InfiniBand");
  auto hcas = CheckHcas({{"mlx5_100", 0}}, root_.string());
  ASSERT_FALSE(hcas.ok());
  EXPECT_EQ(hcas.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(hcas.status().message()), HasSubstr("HCA mlx5_100 does not exist"));
  EXPECT_THAT(std::string(hcas.status().message()), HasSubstr("mlx5_0"));
}

TEST_F(FabricConfigTest, MissingPortIsAnError) {
  AddPort("mlx5_0", 1, "4: ACTIVE", "100 Gb/sec", "InfiniBand");
  auto hcas = CheckHcas({{"mlx5_0", 2}}, root_.string());
  ASSERT_FALSE(hcas.ok());
  EXPECT_THAT(std::string(hcas.status().message()), HasSubstr("has no port 2"));
}

TEST_F(FabricConfigTest, NoInfinibandTreeMeansNoHcas) {
  auto hcas = CheckHcas({{"mlx5_0", 0}}, (root_ / "absent").string());
  ASSERT_FALSE(hcas.ok());
  EXPECT_THAT(std::string(hcas.status().message()), HasSubstr("lists no HCAs"));
}

TEST_F(FabricConfigTest, ReportKeepsMissingHcasWithTheirErrorBesideTheGoodOnes) {
  AddPort("mlx5_100", 1, "4: ACTIVE", "200 Gb/sec (4X HDR)", "InfiniBand");
  AddPort("mlx5_103", 1, "1: DOWN", "200 Gb/sec (4X HDR)", "InfiniBand");
  const auto report = ReportHcas(
      {{"mlx5_100", 1}, {"mlx5_107", 1}, {"mlx5_103", 0}, {"mlx5_100", 2}}, root_.string());
  ASSERT_EQ(report.size(), 4u);
  EXPECT_EQ(report[0].name(), "mlx5_100");
  EXPECT_EQ(report[0].state(), "ACTIVE");
  EXPECT_EQ(report[0].error(), "");
  // Missing: named, with its port and why, instead of being dropped (and
  // of hiding the others).
  EXPECT_EQ(report[1].name(), "mlx5_107");
  EXPECT_EQ(report[1].port(), 1);
  EXPECT_EQ(report[1].state(), "");
  EXPECT_THAT(report[1].error(), HasSubstr("HCA mlx5_107 does not exist"));
  EXPECT_THAT(report[1].error(), Not(HasSubstr("--ib-hca")));
  EXPECT_EQ(report[2].name(), "mlx5_103");
  EXPECT_EQ(report[2].port(), 1);
  EXPECT_EQ(report[2].state(), "DOWN");
  EXPECT_EQ(report[3].name(), "mlx5_100");
  EXPECT_EQ(report[3].port(), 2);
  EXPECT_THAT(report[3].error(), HasSubstr("has no port 2"));

  const std::vector<std::string> warnings = HcaWarnings(report);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_THAT(warnings[0], HasSubstr("mlx5_107 does not exist"));
  EXPECT_THAT(warnings[1], HasSubstr("mlx5_103 port 1 is DOWN"));
}

TEST_F(FabricConfigTest, NothingConfiguredReportsNothing) {
  EXPECT_TRUE(ReportHcas({}, root_.string()).empty());
}

}  // namespace
}  // namespace eb::agent
