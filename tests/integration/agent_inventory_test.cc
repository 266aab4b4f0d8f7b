// What the real eb-agent learns about its host and reports: the NCCL
// version of the library eb-worker itself loads (its probe process), a host
// identity, and the start-time refusals of worker variables that only the
// agent may set.

#include <regex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testutil/local_cluster.h"

namespace eb::testing {
namespace {

using ::testing::HasSubstr;

// --check-config of an agent whose coordinator does not answer (port 1):
// everything is checked and printed, the exit code is 1.
std::vector<std::string> CheckConfigArgs(std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {kNoConfigFile, "--coordinator=127.0.0.1:1", "--check-config"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::string WorkerNcclVersion(LocalCluster& cluster) {
  CliResult probe = cluster.Run("eb-worker", {"--print-nccl-version"});
  EXPECT_EQ(probe.exit_code, 0) << probe.err;
  return probe.out.substr(0, probe.out.find('\n'));
}

TEST(AgentInventoryTest, WorkerPrintsTheNcclVersionItLoads) {
  LocalCluster cluster;
  const std::string version = WorkerNcclVersion(cluster);
#ifdef EB_HAVE_NCCL
  EXPECT_TRUE(std::regex_match(version, std::regex(R"(\d+\.\d+\.\d+)"))) << version;
#else
  EXPECT_EQ(version, "none");
#endif
}

// The daemon asks NVML in a child (agent/host/child_nvml.h): the agent's
// own probe mode prints NVML's report, or why there is none, and exits 0.
TEST(AgentInventoryTest, AgentPrintsNvmlsGpuDetailsForItsDaemon) {
  LocalCluster cluster;
  CliResult probe = cluster.Run("eb-agent", {"--print-gpu-details"});
  EXPECT_EQ(probe.exit_code, 0) << probe.err;
  // No GPU machine in CI: NVML is missing. With one, a line per GPU.
  EXPECT_TRUE(
      std::regex_search(probe.out, std::regex(R"(^(unavailable\t.*libnvidia-ml|gpu\t\d+\t))")))
      << probe.out;
  EXPECT_EQ(probe.out.back(), '\n');
}

TEST(AgentInventoryTest, CheckConfigShowsTheWorkersNcclVersion) {
  LocalCluster cluster;
  const std::string version = WorkerNcclVersion(cluster);
  CliResult check = cluster.Run("eb-agent", CheckConfigArgs());
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
  if (version != "none") {
    EXPECT_THAT(check.out, HasSubstr("nccl: NCCL " + version)) << check.out;
  }
  EXPECT_THAT(check.out, HasSubstr("FAIL  coordinator: 127.0.0.1:1"));
}

TEST(AgentInventoryTest, WorkerEnvWithCudaVisibleDevicesIsRefusedAtStart) {
  LocalCluster cluster;
  CliResult check =
      cluster.Run("eb-agent", CheckConfigArgs({"--worker-env", "CUDA_VISIBLE_DEVICES=0,1"}));
  EXPECT_EQ(check.exit_code, 2);
  EXPECT_THAT(check.err, HasSubstr("--worker-env: CUDA_VISIBLE_DEVICES cannot be set"));
  EXPECT_THAT(check.err, HasSubstr("--gpus"));
}

TEST(AgentInventoryTest, WorkerEnvWithAPrefixHcaListIsRefusedPointingToIbHca) {
  LocalCluster cluster;
  CliResult check =
      cluster.Run("eb-agent", CheckConfigArgs({"--worker-env", "NCCL_IB_HCA=mlx5_1"}));
  EXPECT_EQ(check.exit_code, 2);
  EXPECT_THAT(check.err, HasSubstr("use --ib-hca mlx5_1"));
}

TEST(AgentInventoryTest, InheritedNcclSocketIfnameIsRefusedAtStart) {
  LocalCluster cluster;
  CliResult check = cluster.Run("eb-agent", CheckConfigArgs(), {"NCCL_SOCKET_IFNAME=eth"});
  EXPECT_EQ(check.exit_code, 2);
  EXPECT_THAT(check.err, HasSubstr("eb-agent's environment sets NCCL_SOCKET_IFNAME=eth"));
  EXPECT_THAT(check.err, HasSubstr("use --bootstrap-interface eth"));
}

TEST(AgentInventoryTest, NodesShowTheNcclVersionAndAHostIdentity) {
  LocalCluster cluster;
  const std::string version = WorkerNcclVersion(cluster);
  ASSERT_TRUE(cluster.StartCoordinator().ok());
  ASSERT_TRUE(cluster.StartAgent("host0", 1).ok());
  ASSERT_TRUE(cluster.StartAgent("host1", 1).ok());
  ASSERT_TRUE(cluster.StartAgent("host2", 1, {"--host-id=rack7-slot3"}).ok());
  CliResult nodes = cluster.Ebctl({"nodes", "--json"});
  ASSERT_EQ(nodes.exit_code, 0) << nodes.err;
  const nlohmann::json doc = nlohmann::json::parse(nodes.out);
  ASSERT_EQ(doc["nodes"].size(), 3u);
  for (const nlohmann::json& node : doc["nodes"]) {
    EXPECT_EQ(node["nccl_version"], version == "none" ? "" : version) << node.dump();
    EXPECT_NE(node["host_id"], "") << node.dump();
  }
  // Two agents of one machine: one host.
  EXPECT_EQ(doc["nodes"][0]["host_id"], doc["nodes"][1]["host_id"]);
  EXPECT_EQ(doc["nodes"][2]["host_id"], "configured:rack7-slot3");
  CliResult table = cluster.Ebctl({"nodes"});
  EXPECT_THAT(table.out, HasSubstr("NCCL"));
  if (version != "none") {
    EXPECT_THAT(table.out, HasSubstr(version));
  }
}

}  // namespace
}  // namespace eb::testing
