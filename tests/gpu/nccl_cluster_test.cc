// The whole system on the GPUs of this machine (label gpu): a coordinator,
// one agent with one worker per GPU, and `ebctl run-test --transport nccl`
// for every collective, with the JSON report checked. Skips where the NVIDIA
// driver lists no GPU. Runs against the build tree, or against the binaries
// in $EB_BIN_DIR (the bundle on the GPU machine).

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testutil/local_cluster.h"

namespace eb::testing {
namespace {

using ::testing::HasSubstr;

int DriverGpuCount() {
  std::error_code error;
  int count = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/driver/nvidia/gpus", error)) {
    count += entry.is_directory(error);
  }
  return count;
}

class NcclClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    gpus_ = DriverGpuCount();
    if (gpus_ == 0) GTEST_SKIP() << "no NVIDIA GPU on this machine";
    ASSERT_TRUE(cluster_.StartCoordinator().ok());
    std::vector<std::string> flags = LocalCluster::FastAgentFlags();
    flags.push_back("--transport=nccl");
    ASSERT_TRUE(cluster_.StartAgent("gpu0", gpus_, flags).ok());
  }

  nlohmann::json Run(const std::vector<std::string>& extra, int expected_exit = 0) {
    std::vector<std::string> args = {"run-test", "--json", "--nodes", "gpu0", "--transport",
                                     "nccl", "-b", "8", "-e", "8M", "-f", "8", "-n", "5",
                                     "-c", "2", "--nccl-env", "NCCL_NVLS_ENABLE=0"};
    args.insert(args.end(), extra.begin(), extra.end());
    CliResult result = cluster_.Ebctl(args, absl::Minutes(5));
    EXPECT_EQ(result.exit_code, expected_exit) << result.err;
    nlohmann::json report = nlohmann::json::parse(result.out, nullptr, false);
    EXPECT_FALSE(report.is_discarded()) << result.out << result.err;
    return report;
  }

  int gpus_ = 0;
  LocalCluster cluster_;
};

TEST_F(NcclClusterTest, EveryCollectivePassesOnTheLocalGpus) {
  for (const char* collective : {"all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                 "reduce", "alltoall", "sendrecv"}) {
    SCOPED_TRACE(collective);
    nlohmann::json report = Run({"--collective", collective});
    ASSERT_TRUE(report.is_object());
    EXPECT_EQ(report["state"], "passed") << report["summary"];
    EXPECT_EQ(report["transport"], "nccl");
    EXPECT_EQ(report["config"]["nranks"], gpus_);
    for (int rank = 0; rank < gpus_; ++rank) {
      EXPECT_EQ(report["devices"][rank]["device"], rank);
      EXPECT_EQ(report["devices"][rank]["local_rank"], rank);
    }
    EXPECT_EQ(report["out_of_bounds"]["count"], 0);
    EXPECT_GT(report["results"].size(), 0u);
  }
  EXPECT_TRUE(cluster_.WaitForNoWorkers("", absl::Seconds(10)));
}

TEST_F(NcclClusterTest, TypesAndCudaGraphsAreVerified) {
  for (const char* type : {"half", "bfloat16", "int8", "double"}) {
    SCOPED_TRACE(type);
    nlohmann::json report = Run({"--collective", "all_reduce", "-d", type, "-o", "max"});
    EXPECT_EQ(report["state"], "passed") << report["summary"];
  }
  nlohmann::json graph = Run({"--collective", "all_reduce", "-G", "1"});
  EXPECT_EQ(graph["state"], "passed") << graph["summary"];
}

TEST_F(NcclClusterTest, NcclLogOfARankIsFetched) {
  nlohmann::json report = Run({"--collective", "all_reduce", "--nccl-env", "NCCL_DEBUG=INFO"});
  ASSERT_EQ(report["state"], "passed");
  CliResult logs = cluster_.Ebctl({"logs", report["test_id"], "--rank", "0"});
  ASSERT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_THAT(logs.out, HasSubstr("NCCL INFO"));
}

TEST_F(NcclClusterTest, TwoRanksPerGpuAreRefusedBeforeAnythingStarts) {
  CliResult result = cluster_.Ebctl({"run-test", "--nodes", "gpu0", "--transport", "nccl",
                                     "--workers-per-node", std::to_string(gpus_ + 1), "-b", "8",
                                     "-e", "8"});
  EXPECT_EQ(result.exit_code, 5) << result.err;
  EXPECT_THAT(result.err, HasSubstr("worker slot"));
  EXPECT_TRUE(cluster_.WorkerPids().empty());
}

}  // namespace
}  // namespace eb::testing
