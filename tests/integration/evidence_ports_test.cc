// Evidence inside a test (issue 12, parts 3, 4 and 5), with real processes
// over Gloo and each agent's --sysfs-infiniband pointed at a fake tree:
//  * the port counters: the test advances one node's counters while the
//    test runs, and the report shows the deltas, the growth flagged and
//    the cable note; `ebctl show` prints them; on a slow path they name
//    the port as the culprit (issue 29 item 6);
//  * NCCL's warnings of a failed test: lines in NCCL's format written into
//    the ranks' logs (the transport-independent line source: NCCL writes
//    its warnings to the same log), a rank killed, and the report carries
//    the last warnings, per rank and on the failure;
//  * drift: two agents whose HCA firmware differs are refused before
//    launch, naming the node, unless --allow-drift.

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testutil/cli_json.h"
#include "tests/testutil/fake_sysfs.h"
#include "tests/testutil/local_cluster.h"

namespace eb::testing {
namespace {

using ::testing::HasSubstr;

void MakeHca(FakeSysfs& sysfs, const std::string& fw_ver) {
  sysfs.AddHca("mlx5_100", {}, fw_ver);
  sysfs.SetPort("mlx5_100", 1, "4: ACTIVE", "5: LinkUp");
  sysfs.SetCounter("mlx5_100", 1, "symbol_error", 0);
  sysfs.SetCounter("mlx5_100", 1, "link_downed", 0);
  sysfs.SetCounter("mlx5_100", 1, "port_xmit_data", 1000);
}

// Two agents of `workers` slots, each with its own fake HCA tree.
void StartCluster(LocalCluster& cluster, int workers, FakeSysfs& host0, FakeSysfs& host1,
                  const std::string& fault) {
  std::vector<std::string> coordinator = LocalCluster::FastCoordinatorFlags();
  for (std::string& flag : coordinator) {
    if (flag.rfind("--heartbeat-miss-limit=", 0) == 0) flag = "--heartbeat-miss-limit=25";
  }
  ASSERT_TRUE(cluster.StartCoordinator(coordinator).ok());
  for (auto [name, sysfs] : {std::pair{"host0", &host0}, std::pair{"host1", &host1}}) {
    std::vector<std::string> flags = LocalCluster::FastAgentFlags();
    flags.emplace_back("--ib-hca=mlx5_100:1");
    flags.push_back("--sysfs-infiniband=" + sysfs->infiniband().string());
    flags.push_back("--sysfs-pci=" + sysfs->pci().string());
    if (!fault.empty()) flags.push_back("--worker-env=EB_WORKER_FAULT=" + fault);
    ASSERT_TRUE(cluster.StartAgent(name, workers, flags).ok());
  }
}

std::vector<std::string> GlooSweep(std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"run-test", "--nodes", "host0,host1", "--transport", "gloo",
                                   "-b",       "8",       "-e",          "32K",         "-f",
                                   "8",        "-n",      "3",           "-w",          "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// The log of `rank` of the one test that ran on agent `node`.
std::string RankLog(const LocalCluster& cluster, const std::string& node, int rank) {
  std::error_code error;
  for (const auto& test :
       std::filesystem::directory_iterator(cluster.agent_run_dir(node) + "/logs", error)) {
    return (test.path() / absl::StrCat("rank-", rank, ".log")).string();
  }
  return "";
}

TEST(PortCountersTest, CountersAdvancedDuringTheRunAreInTheReport) {
  FakeSysfs host0("ports-host0");
  FakeSysfs host1("ports-host1");
  MakeHca(host0, "28.39.1002");
  MakeHca(host1, "28.39.1002");
  LocalCluster cluster;
  // Slow enough (30 timed calls x 100 ms) that the counters move while the
  // test runs.
  StartCluster(cluster, 1, host0, host1, "slow=100:rank=0");
  const int ebctl = cluster.StartEbctl(GlooSweep({"--json"}));
  ASSERT_GT(cluster.WaitForRunningWorker(1), 0);
  host1.SetCounter("mlx5_100", 1, "symbol_error", 12);
  host1.SetCounter("mlx5_100", 1, "port_xmit_data", 91000);
  CliResult result = cluster.WaitEbctl(ebctl);
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  nlohmann::json report = ParseJsonOut(result);
  const nlohmann::json& ports = report["port_counters"];
  ASSERT_EQ(ports.size(), 2u) << report.dump();
  for (const nlohmann::json& port : ports) {
    SCOPED_TRACE(port.dump());
    EXPECT_EQ(port["hca"], "mlx5_100");
    EXPECT_EQ(port["port"], 1);
    EXPECT_EQ(port["start"]["state"], "ACTIVE");
    EXPECT_EQ(port["end"]["phys_state"], "LinkUp");
    EXPECT_EQ(port["link_flapped"], false);
    if (port["node"] == "host1") {
      EXPECT_EQ(port["counters"]["symbol_error"]["delta"], 12);
      EXPECT_EQ(port["counters"]["symbol_error"]["error"], true);
      EXPECT_EQ(port["counters"]["port_xmit_data"]["delta"], 90000);
      EXPECT_EQ(port["grown_errors"], nlohmann::json({"symbol_error +12"}));
    } else {
      EXPECT_EQ(port["node"], "host0");
      EXPECT_EQ(port["counters"]["symbol_error"]["delta"], 0);
      EXPECT_TRUE(port["grown_errors"].empty());
    }
  }
  EXPECT_THAT(report["summary"].get<std::string>(),
              HasSubstr("host1 mlx5_100:1 symbol_error +12 (a slow rail with growing symbol "
                        "errors is a cable)"));

  CliResult text = cluster.Ebctl({"show", report["test_id"].get<std::string>()});
  ASSERT_EQ(text.exit_code, 0) << text.err << text.out;
  EXPECT_THAT(text.out, HasSubstr("# HCA port counters (before -> after the test)\n"));
  EXPECT_THAT(text.out, HasSubstr("# host1 mlx5_100:1  ACTIVE/LinkUp 200 Gb/s InfiniBand\n"
                                  "#   errors grew: symbol_error +12\n"
                                  "#   growing symbol errors: a slow rail on this port is a "
                                  "cable (or transceiver)\n"
                                  "#   port_xmit_data +90000\n"));
  std::cout << text.out;
}

// Issue 29 item 6: every rank slowed alike (a slow path: nobody late, nobody
// stalled) while one port's symbol errors grow: the culprit is no longer
// "the path" by elimination but that port, named with its node.
TEST(PortCountersTest, APortWhoseSymbolErrorsGrewIsTheCulpritOfASlowPath) {
  FakeSysfs host0("culprit-host0");
  FakeSysfs host1("culprit-host1");
  MakeHca(host0, "28.39.1002");
  MakeHca(host1, "28.39.1002");
  LocalCluster cluster;
  StartCluster(cluster, 1, host0, host1, "slow=100");
  const int ebctl = cluster.StartEbctl(GlooSweep({"--json"}));
  ASSERT_GT(cluster.WaitForRunningWorker(1), 0);
  host1.SetCounter("mlx5_100", 1, "symbol_error", 7);
  CliResult result = cluster.WaitEbctl(ebctl);
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  const nlohmann::json report = ParseJsonOut(result);
  const nlohmann::json& culprit = report["culprit"];
  SCOPED_TRACE(culprit.dump(2));
  // A loaded machine can stall every rank alike ("cannot tell"): the port
  // is then the hint. Never "the path" with a port's link errors grown.
  ASSERT_TRUE(culprit["kind"] == "link_errors" || culprit["kind"] == "unknown");
  ASSERT_EQ(culprit["counters"].size(), 1u);
  EXPECT_EQ(culprit["counters"][0]["node"], "host1");
  EXPECT_EQ(culprit["counters"][0]["part"], "mlx5_100 port 1");
  EXPECT_EQ(culprit["counters"][0]["what"], "counted 7 symbol_error");
  EXPECT_EQ(culprit["counters"][0]["link_errors"], true);
  if (culprit["kind"] != "link_errors") return;
  EXPECT_EQ(culprit["node"], "host1");
  EXPECT_EQ(culprit["part"], "mlx5_100 port 1");
  CliResult text = cluster.Ebctl({"show", report["test_id"].get<std::string>()});
  ASSERT_EQ(text.exit_code, 0) << text.err << text.out;
  EXPECT_THAT(text.out, HasSubstr("# Culprit: link_errors host1 mlx5_100 port 1: host1 mlx5_100 "
                                  "port 1 counted 7 symbol_error during the test: that port, its "
                                  "cable or transceiver; no rank arrived late"));
  std::cout << text.out;
}

TEST(NcclWarningsTest, AFailedTestCarriesTheRanksLastNcclWarnings) {
  FakeSysfs host0("warn-host0");
  FakeSysfs host1("warn-host1");
  MakeHca(host0, "28.39.1002");
  MakeHca(host1, "28.39.1002");
  LocalCluster cluster;
  StartCluster(cluster, 2, host0, host1, "slow=200:rank=0");
  const int ebctl = cluster.StartEbctl(GlooSweep({"--json"}));
  const pid_t victim = cluster.WaitForRunningWorker(3);
  ASSERT_GT(victim, 0);
  // NCCL writes its warnings to the rank's stderr, which is this log.
  const char* kWarn =
      "a800-1:4242:4299 [1] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer "
      "10.0.0.1<43456> with status=12 opcode=0 len=0 vendor err 129 (Recv) hca mlx5_100\n";
  for (int rank : {0, 1, 2, 3}) {
    std::ofstream log(RankLog(cluster, rank < 2 ? "host0" : "host1", rank), std::ios::app);
    log << "a800-1:4242:4299 [1] NCCL INFO not a warning\n" << kWarn;
  }
  ASSERT_EQ(::kill(victim, SIGKILL), 0);
  CliResult result = cluster.WaitEbctl(ebctl);
  EXPECT_NE(result.exit_code, 0) << result.err << result.out;
  nlohmann::json report = ParseJsonOut(result);
  EXPECT_EQ(report["state"], "failed") << report.dump();
  const nlohmann::json& warnings = report["nccl_warnings"];
  ASSERT_EQ(warnings.size(), 4u) << report.dump();
  for (const nlohmann::json& rank : warnings) {
    EXPECT_EQ(rank["node"], rank["rank"].get<int>() < 2 ? "host0" : "host1");
    ASSERT_EQ(rank["lines"].size(), 1u) << rank.dump();
    EXPECT_THAT(rank["lines"][0].get<std::string>(),
                HasSubstr("NCCL WARN NET/IB : Got completion"));
  }
  // The failing rank's failure carries its own lines. That is the killed
  // rank, or, when its peer's Gloo saw the reset before the agent saw the
  // exit, that peer (the stop then hides the kill): either way a rank with
  // warnings.
  ASSERT_FALSE(report["failures"].empty());
  const int failed = report["failures"][0]["rank"].get<int>();
  EXPECT_TRUE(failed == 3 || failed == 0 || failed == 1) << report["failures"].dump();
  ASSERT_EQ(report["failures"][0]["nccl_warnings"].size(), 1u) << report["failures"].dump();

  CliResult text = cluster.Ebctl({"show", report["test_id"].get<std::string>()});
  EXPECT_THAT(text.out, HasSubstr("# no error counter grew on any port: a slow rail here is not "
                                  "the cable; look elsewhere\n"));
  EXPECT_THAT(text.out, HasSubstr("# NCCL warnings (last lines of each rank's log)\n"));
  EXPECT_THAT(text.out, HasSubstr("# rank 3 (host1):\n#   a800-1:4242:4299 [1] "
                                  "transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion"));
  // In rank order.
  EXPECT_LT(text.out.find("# rank 0 (host0):"), text.out.find("# rank 3 (host1):"));
  std::cout << text.out;
}

TEST(DriftTest, NodesWithDifferentHcaFirmwareAreRefusedUnlessAllowed) {
  FakeSysfs host0("drift-host0");
  FakeSysfs host1("drift-host1");
  MakeHca(host0, "28.39.1002");
  MakeHca(host1, "28.35.2000");
  LocalCluster cluster;
  StartCluster(cluster, 1, host0, host1, "");
  CliResult refused = cluster.Ebctl(GlooSweep());
  EXPECT_NE(refused.exit_code, 0) << refused.out;
  EXPECT_THAT(refused.err, HasSubstr("HCA mlx5_100:1 firmware"));
  EXPECT_THAT(refused.err, HasSubstr("28.35.2000"));
  EXPECT_THAT(refused.err, HasSubstr("--allow-drift"));
  // Nothing started.
  EXPECT_TRUE(cluster.WorkerPids().empty());

  CliResult allowed = cluster.Ebctl(GlooSweep({"--json", "--allow-drift"}));
  ASSERT_EQ(allowed.exit_code, 0) << allowed.err << allowed.out;
  nlohmann::json report = ParseJsonOut(allowed);
  // Two nodes, two values: no majority, so both are named.
  ASSERT_EQ(report["drift_warnings"].size(), 2u) << report.dump();
  EXPECT_THAT(report["drift_warnings"][0].get<std::string>(), HasSubstr("HCA mlx5_100:1 firmware"));
  std::cerr << "refused: " << refused.err;
}

}  // namespace
}  // namespace eb::testing
