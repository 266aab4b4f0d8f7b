// Failure handling with real processes (issue: "nothing hangs"): a worker
// killed mid-test, an agent killed mid-test, a rank that never joins, a
// worker that never registers, a hung (SIGSTOPped) worker, a worker
// SIGSTOPped 30 ms of every 100 ms inside the collectives (issue 29 item 6:
// named by its schedule, which arrivals cannot see), wrong data, an
// interrupted ebctl. Each must fail fast with a message naming rank, node
// and slot, leave no worker behind, and leave the agents able to run the
// next test.

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/validation/culprit.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testutil/cli_json.h"
#include "tests/testutil/local_cluster.h"

namespace eb::testing {
namespace {

using ::testing::HasSubstr;

class FaultInjectionTest : public ::testing::Test {
 protected:
  void StartCluster(std::vector<std::string> host1_extra = {}) {
    ASSERT_TRUE(cluster_.StartCoordinator().ok());
    ASSERT_TRUE(cluster_.StartAgent("host0", 2).ok());
    std::vector<std::string> flags = LocalCluster::FastAgentFlags();
    flags.insert(flags.end(), host1_extra.begin(), host1_extra.end());
    ASSERT_TRUE(cluster_.StartAgent("host1", 2, flags).ok());
  }

  // The culprit of a failed test is the failure's part, never another part
  // or "the path" from the rows measured before it (issue 29 item 6); null
  // when nothing was measured before the fault.
  static void ExpectCulpritIsTheFailure(const nlohmann::json& report) {
    const nlohmann::json& culprit = report["culprit"];
    if (culprit.is_null()) return;
    const nlohmann::json& primary = report["failures"][0];
    EXPECT_EQ(culprit["kind"], "failure") << culprit.dump(2);
    EXPECT_EQ(culprit["node"], primary["node"]) << culprit.dump(2);
    if (primary["rank"] >= 0) {
      EXPECT_EQ(culprit["rank"], primary["rank"]) << culprit.dump(2);
    }
  }

  // The agents must run the next test normally.
  void ExpectNextTestPasses() {
    ASSERT_TRUE(cluster_.WaitForIdleNodes(2).ok());
    CliResult result = cluster_.Ebctl(QuickTestArgs());
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(ParseJsonOut(result)["state"], "passed");
  }

  LocalCluster cluster_;
};

TEST_F(FaultInjectionTest, KilledWorkerFailsTheTestWithinSeconds) {
  StartCluster();
  const int handle = cluster_.StartEbctl(LongSweepArgs());
  const pid_t victim = cluster_.WaitForRunningWorker(3);
  ASSERT_GT(victim, 0);
  const absl::Time killed = absl::Now();
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  CliResult result = cluster_.WaitEbctl(handle);
  const absl::Duration detection = absl::Now() - killed;
  EXPECT_LT(detection, absl::Seconds(5)) << "the failure must not wait for a deadline";
  EXPECT_EQ(result.exit_code, 3) << result.err;
  nlohmann::json report = ParseJsonOut(result);
  EXPECT_EQ(report["state"], "failed");
  const nlohmann::json& primary = report["failures"][0];
  EXPECT_EQ(primary["kind"], "worker_exited");
  EXPECT_EQ(primary["rank"], 3);
  EXPECT_EQ(primary["node"], "host1");
  EXPECT_EQ(primary["local_rank"], 1);
  EXPECT_EQ(primary["signal"], 9);
  EXPECT_THAT(report["summary"].get<std::string>(), HasSubstr("rank 3 (node host1, slot 1)"));
  EXPECT_THAT(report["summary"].get<std::string>(), HasSubstr("SIGKILL"));
  ExpectCulpritIsTheFailure(report);
  // The other workers were stopped before the verdict was delivered.
  EXPECT_TRUE(cluster_.WorkerPids(report["test_id"]).empty());
  ExpectNextTestPasses();
}

TEST_F(FaultInjectionTest, KilledAgentFailsTheTestNamingTheNode) {
  StartCluster();
  const int handle = cluster_.StartEbctl(LongSweepArgs());
  ASSERT_GT(cluster_.WaitForRunningWorker(0), 0);
  const absl::Time killed = absl::Now();
  ASSERT_TRUE(cluster_.SignalAgent("host1", SIGKILL).ok());
  CliResult result = cluster_.WaitEbctl(handle);
  EXPECT_LT(absl::Now() - killed, absl::Seconds(5));
  EXPECT_EQ(result.exit_code, 3) << result.err;
  nlohmann::json report = ParseJsonOut(result);
  const nlohmann::json& primary = report["failures"][0];
  EXPECT_EQ(primary["kind"], "node_lost");
  EXPECT_EQ(primary["node"], "host1");
  EXPECT_THAT(report["summary"].get<std::string>(), HasSubstr("node host1"));
  ExpectCulpritIsTheFailure(report);
  // host0's workers were stopped by its agent; host1's died with their agent
  // (parent-death signal).
  EXPECT_TRUE(cluster_.WaitForNoWorkers(report["test_id"], absl::Seconds(5)));
  // A restarted agent registers again under the same name.
  ASSERT_TRUE(cluster_.StartAgent("host1", 2).ok());
  ExpectNextTestPasses();
}

TEST_F(FaultInjectionTest, RankThatNeverJoinsTimesOutNamingIt) {
  StartCluster({"--worker-env=EB_WORKER_FAULT=hang_before_join:rank=3"});
  std::vector<std::string> args = QuickTestArgs();
  args.insert(args.end(), {"--init-timeout", "3s"});
  CliResult result = cluster_.Ebctl(args);
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_GE(result.elapsed, absl::Seconds(3));
  EXPECT_LT(result.elapsed, absl::Seconds(3 + 8));
  nlohmann::json report = ParseJsonOut(result);
  EXPECT_EQ(report["state"], "timed_out");
  ASSERT_EQ(report["failures"].size(), 1u) << report["failures"].dump();
  EXPECT_EQ(report["failures"][0]["kind"], "timeout");
  EXPECT_EQ(report["failures"][0]["rank"], 3);
  EXPECT_EQ(report["failures"][0]["node"], "host1");
  EXPECT_THAT(report["summary"].get<std::string>(), HasSubstr("did not join"));
  EXPECT_TRUE(cluster_.WorkerPids(report["test_id"]).empty());
  // What the rank wrote with stdio before it was stopped is in its log, as
  // NCCL's warnings must be: a stop leaves with std::_Exit, which drops a
  // stdio buffer (seen on the H200 before stdout was made line-buffered).
  CliResult log = cluster_.Ebctl({"logs", report["test_id"].get<std::string>(), "--rank", "3"});
  EXPECT_THAT(log.out, HasSubstr("hang_before_join, written with stdio")) << log.err;
}

TEST_F(FaultInjectionTest, WorkerThatNeverRegistersTimesOut) {
  StartCluster({"--worker-env=EB_WORKER_FAULT=hang_before_register:rank=2"});
  std::vector<std::string> args = QuickTestArgs();
  // 2 s for the healthy ranks to start and register, as many times longer
  // as instrumented workers are slower (ASan under load took more than 2 s
  // for two healthy ranks, and they were named too).
  args.insert(args.end(),
              {"--launch-timeout", absl::StrCat(2 * LocalCluster::TestSlowdown(), "s")});
  CliResult result = cluster_.Ebctl(args);
  EXPECT_EQ(result.exit_code, 4) << result.err;
  nlohmann::json report = ParseJsonOut(result);
  EXPECT_EQ(report["state"], "timed_out");
  EXPECT_EQ(report["failures"][0]["kind"], "worker_registration_timeout");
  EXPECT_EQ(report["failures"][0]["rank"], 2);
  EXPECT_TRUE(cluster_.WorkerPids(report["test_id"]).empty());
}

TEST_F(FaultInjectionTest, HungWorkerIsNamed) {
  StartCluster();
  const int handle = cluster_.StartEbctl(LongSweepArgs());
  const pid_t victim = cluster_.WaitForRunningWorker(1);
  ASSERT_GT(victim, 0);
  ASSERT_EQ(kill(victim, SIGSTOP), 0);
  CliResult result = cluster_.WaitEbctl(handle);
  EXPECT_NE(result.exit_code, 0);
  nlohmann::json report = ParseJsonOut(result);
  EXPECT_NE(report["state"], "passed");
  const nlohmann::json& primary = report["failures"][0];
  EXPECT_EQ(primary["kind"], "worker_hung") << report["failures"].dump(2);
  EXPECT_EQ(primary["rank"], 1);
  EXPECT_EQ(primary["node"], "host0");
  ExpectCulpritIsTheFailure(report);
  EXPECT_TRUE(cluster_.WaitForNoWorkers(report["test_id"], absl::Seconds(5)));
  ExpectNextTestPasses();
}

// A rank descheduled inside the calls (a noisy neighbour, a CPU-starved
// host) arrives on time at every call, so arrivals alone said "flat: the
// path" in 12 of 12 runs while busbw fell by a third. Its own schedule
// (ticker gaps) names it. EB_CULPRIT_RUNS=N repeats the test N times on one
// cluster and prints the hit rate (docs/RELIABILITY.md, "Descheduled
// ranks").
TEST_F(FaultInjectionTest, RankStoppedInsideTheCallsIsNamedAsTheCulprit) {
  StartCluster();
  const char* env = std::getenv("EB_CULPRIT_RUNS");
  const int runs = env != nullptr ? std::max(1, std::atoi(env)) : 1;
  int named = 0;
  for (int run = 0; run < runs; ++run) {
    SCOPED_TRACE(absl::StrCat("run ", run));
    ASSERT_TRUE(cluster_.WaitForIdleNodes(2).ok());
    // 1 MiB to 8 MiB of all_reduce, 20 calls each: the timed calls are most
    // of the test, so the stops land mostly inside them.
    const int handle = cluster_.StartEbctl({"run-test", "--json", "--nodes", "host0,host1", "-b",
                                            "1M", "-e", "8M", "-f", "2", "-n", "20", "-w", "1"});
    const pid_t victim = cluster_.WaitForRunningWorker(1);
    ASSERT_GT(victim, 0);
    std::atomic<bool> done{false};
    std::thread duty([&] {
      while (!done.load()) {
        if (kill(victim, SIGSTOP) != 0) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        kill(victim, SIGCONT);
        std::this_thread::sleep_for(std::chrono::milliseconds(70));
      }
    });
    CliResult result = cluster_.WaitEbctl(handle);
    done = true;
    duty.join();
    kill(victim, SIGCONT);  // in case the loop left it stopped
    ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
    nlohmann::json report = ParseJsonOut(result);
    const nlohmann::json& culprit = report["culprit"];
    ASSERT_TRUE(culprit.is_object()) << report.dump();
    const bool hit =
        culprit["kind"] == "descheduled_rank" && culprit["rank"] == 1 && culprit["node"] == "host0";
    named += hit ? 1 : 0;
    std::printf("run %d: %s: %s\n", run, culprit["kind"].dump().c_str(),
                culprit["reason"].get<std::string>().c_str());
    EXPECT_TRUE(hit) << culprit.dump(2) << "\narrivals: " << report["arrivals"].dump();
    // Never "the path" while one rank was stopped a third of the time.
    EXPECT_NE(culprit["kind"], "path");
  }
  std::printf("culprit named in %d of %d runs\n", named, runs);
}

// A CPU limit on one worker (what a Kubernetes pod's limits.cpu or a
// CPUQuota= does; here a cgroup v1 quota of 20 ms per 100 ms) slows it
// inside the calls without stopping it: its cgroup's throttled time names
// it, even where its stall stays under the ticker's 15 % floor (issue 29
// item 6; culprit scoring's cpu_quota case). Needs root and cgroup v1's
// cpu controller, as CI has; skipped elsewhere, saying so.
TEST_F(FaultInjectionTest, ARankUnderACpuLimitIsNamedByItsCgroup) {
  const std::filesystem::path base = "/sys/fs/cgroup/cpu";
  if (geteuid() != 0 || !std::filesystem::exists(base / "cpu.cfs_quota_us")) {
    GTEST_SKIP() << "needs root and cgroup v1's cpu controller at " << base;
  }
  struct LimitedCgroup {
    std::filesystem::path dir;
    ~LimitedCgroup() {
      std::ifstream tasks(dir / "cgroup.procs");
      for (std::string pid; std::getline(tasks, pid);) {
        std::ofstream(dir.parent_path() / "cgroup.procs") << pid << "\n";
      }
      std::error_code error;
      std::filesystem::remove(dir, error);
    }
  } limited{base / absl::StrCat("ebnccl-fault-", getpid())};
  std::filesystem::create_directory(limited.dir);
  std::ofstream(limited.dir / "cpu.cfs_period_us") << "100000\n";
  std::ofstream(limited.dir / "cpu.cfs_quota_us") << "20000\n";
  // The most weight a group may have: on a loaded host (a sanitizer run's
  // other tests) a group of the default weight gets less CPU than its
  // quota, so the limit would never bind and the host's load, which every
  // rank shares, would be all there is to see. CI failed so, with 0.9 %
  // throttled; 12 busy loops beside the test reproduce it.
  std::ofstream(limited.dir / "cpu.shares") << "262144\n";

  StartCluster();
  ASSERT_TRUE(cluster_.WaitForIdleNodes(2).ok());
  const int handle = cluster_.StartEbctl({"run-test", "--json", "--nodes", "host0,host1", "-b",
                                          "1M", "-e", "4M", "-f", "2", "-n", "10", "-w", "1"});
  const pid_t victim = cluster_.WaitForRunningWorker(1);
  ASSERT_GT(victim, 0);
  // cgroup.procs moves every thread of the process, and those it starts.
  std::ofstream(limited.dir / "cgroup.procs") << victim << "\n";
  CliResult result = cluster_.WaitEbctl(handle);
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  nlohmann::json report = ParseJsonOut(result);
  const nlohmann::json& culprit = report["culprit"];
  ASSERT_TRUE(culprit.is_object()) << report.dump();
  std::printf("%s: %s\n", culprit["kind"].dump().c_str(),
              culprit["reason"].get<std::string>().c_str());
  // Whatever the load: the other ranks ran under no limit and read 0, and
  // nothing names another rank or node.
  const nlohmann::json& throttled = report["culprit"]["schedule"]["rank_throttled_pct"];
  ASSERT_TRUE(throttled.is_array()) << culprit.dump(2);
  for (int r : {0, 2, 3}) EXPECT_EQ(throttled[r], 0.0) << throttled.dump();
  if (!culprit["rank"].is_null()) {
    EXPECT_EQ(culprit["rank"], 1) << culprit.dump(2);
  }
  if (!culprit["node"].is_null()) {
    EXPECT_EQ(culprit["node"], "host0") << culprit.dump(2);
  }
  // The limit binds only where the worker wants more CPU than it allows:
  // on a host so loaded that every rank runs slower than 20 % of a CPU
  // (a sanitizer run's other tests; 12 busy loops beside it), the rank
  // is not what holds the others back, and naming it would be wrong.
  if (throttled[1].get<double>() < 100.0 * validation::kMinThrottledShare) {
    GTEST_SKIP() << "the limit did not bind (rank 1 held back " << throttled[1]
                 << " % of its timed calls): the host's load made every rank slower than it";
  }
  EXPECT_EQ(culprit["kind"], "descheduled_rank") << culprit.dump(2);
  EXPECT_EQ(culprit["rank"], 1) << culprit.dump(2);
  EXPECT_THAT(culprit["reason"].get<std::string>(), HasSubstr("was held back by a CPU limit"));
}

TEST_F(FaultInjectionTest, WrongDataExitsSeven) {
  StartCluster({"--worker-env=EB_WORKER_FAULT=corrupt_at_size=1:rank=2"});
  CliResult result = cluster_.Ebctl(QuickTestArgs());
  EXPECT_EQ(result.exit_code, 7) << result.err;
  nlohmann::json report = ParseJsonOut(result);
  EXPECT_EQ(report["state"], "failed");
  EXPECT_EQ(report["failures"][0]["kind"], "wrong_data");
  EXPECT_EQ(report["failures"][0]["rank"], 2);
  EXPECT_EQ(report["out_of_bounds"]["count"], 1);
  EXPECT_EQ(report["out_of_bounds"]["okay"], false);
}

TEST_F(FaultInjectionTest, BandwidthBelowMinimumExitsSeven) {
  StartCluster();
  std::vector<std::string> args = QuickTestArgs();
  args.insert(args.end(), {"--min-busbw", "100000"});
  CliResult result = cluster_.Ebctl(args);
  EXPECT_EQ(result.exit_code, 7) << result.err;
  nlohmann::json report = ParseJsonOut(result);
  EXPECT_EQ(report["failures"][0]["kind"], "below_min_busbw");
  EXPECT_EQ(report["average_bus_bandwidth"]["okay"], false);
}

TEST_F(FaultInjectionTest, InterruptedEbctlCancelsTheTest) {
  StartCluster();
  const int handle = cluster_.StartEbctl(LongSweepArgs());
  ASSERT_GT(cluster_.WaitForRunningWorker(0), 0);
  cluster_.SignalEbctl(handle, SIGINT);
  CliResult result = cluster_.WaitEbctl(handle, absl::Seconds(20));
  EXPECT_EQ(result.exit_code, 130) << result.err;
  EXPECT_THAT(result.err, ::testing::HasSubstr("interrupted; cancelling the test")) << result.err;
  EXPECT_TRUE(cluster_.WaitForNoWorkers("", absl::Seconds(10)));
  ExpectNextTestPasses();
}

}  // namespace
}  // namespace eb::testing
