// Evidence inside a test (issue 12), with real processes over Gloo:
//  * straggler attribution by arrival: a rank paused before every timed
//    call (EB_WORKER_FAULT=slow=MS:rank=R) is named every time, whichever
//    rank it is, and a healthy run names nobody (its arrivals are flat);
//  * per-rail results (--split-rails): one sub-communicator per local rank,
//    one result per rail, and a slowed worker shows up on its rail only,
//    with the text naming the rail, the node and the slot.

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testutil/cli_json.h"
#include "tests/testutil/local_cluster.h"

namespace eb::testing {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

// Both agents get the same fault: its `rank=` picks the one worker.
void StartCluster(LocalCluster& cluster, int workers, const std::string& fault) {
  // These tests judge timing, not failure detection: a node is presumed
  // lost after 5 s of silence rather than 0.6 s, which a shared 2-core
  // machine under load can exceed with 10 processes running.
  std::vector<std::string> coordinator = LocalCluster::FastCoordinatorFlags();
  for (std::string& flag : coordinator) {
    if (flag.rfind("--heartbeat-miss-limit=", 0) == 0) flag = "--heartbeat-miss-limit=25";
  }
  ASSERT_TRUE(cluster.StartCoordinator(coordinator).ok());
  std::vector<std::string> flags = LocalCluster::FastAgentFlags();
  if (!fault.empty()) flags.push_back("--worker-env=EB_WORKER_FAULT=" + fault);
  ASSERT_TRUE(cluster.StartAgent("host0", workers, flags).ok());
  ASSERT_TRUE(cluster.StartAgent("host1", workers, flags).ok());
}

// 5 sizes x 2 variants = 10 measurements of 3 timed calls each.
// 8 B to 32 KiB, every `factor` times: factor 8 is 5 sizes, 10 measurements.
std::vector<std::string> Sweep(std::vector<std::string> extra = {},
                               const std::string& factor = "8") {
  std::vector<std::string> args = {"run-test", "--nodes", "host0,host1", "-b", "8",  "-e", "32K",
                                   "-f",       factor,    "-n",          "3",  "-w", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

class SlowRankTest : public ::testing::TestWithParam<int> {};

TEST_P(SlowRankTest, ThePausedRankIsNamedByArrivalEveryTime) {
  const int rank = GetParam();
  LocalCluster cluster;
  StartCluster(cluster, 2, absl::StrCat("slow=30:rank=", rank));
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE(absl::StrCat("run ", run));
    CliResult result = cluster.Ebctl(Sweep({"--json"}));
    ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
    nlohmann::json report = ParseJsonOut(result);
    const nlohmann::json& slowest = report["slowest_rank"];
    ASSERT_TRUE(slowest.is_object()) << report.dump();
    EXPECT_EQ(slowest["basis"], "arrival");
    EXPECT_EQ(slowest["rank"], rank) << report["results"].dump();
    EXPECT_EQ(slowest["node"], rank < 2 ? "host0" : "host1");
    EXPECT_EQ(slowest["local_rank"], rank % 2);
    // Late in nearly every measurement (all of them on a quiet machine; a
    // loaded one can stretch a call beyond 4 x the pause), by about the
    // pause: one of 4 ranks is named at 8 of 10, which chance reaches
    // 0.17 % of the time (ChanceOfLateCount).
    EXPECT_EQ(slowest["measurements"], 10);
    EXPECT_GE(slowest["slowest_count"].get<int>(), 8);
    EXPECT_GT(slowest["mean_lag_us"].get<double>(), 20000.0);
    EXPECT_EQ(report["arrivals"]["flat"], false);
  }
  // The text names it too.
  CliResult text = cluster.Ebctl(Sweep());
  ASSERT_EQ(text.exit_code, 0) << text.err << text.out;
  EXPECT_THAT(text.out, HasSubstr(absl::StrCat("# Straggler: rank ", rank, " (node ",
                                               rank < 2 ? "host0" : "host1", ", slot ", rank % 2,
                                               ") arrived last in ")));
}

INSTANTIATE_TEST_SUITE_P(Ranks, SlowRankTest, ::testing::Values(3, 0));

TEST(HealthyRunTest, NamesNoStragglerAndSaysArrivalsAreFlat) {
  LocalCluster cluster;
  StartCluster(cluster, 2, "");
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE(absl::StrCat("run ", run));
    // 9 sizes x 2 variants: noise would have to make one rank late in a
    // majority of 18 measurements.
    CliResult result = cluster.Ebctl({"run-test", "--json", "--nodes", "host0,host1", "-b", "8",
                                      "-e", "1M", "-f", "4", "-n", "5"});
    ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
    nlohmann::json report = ParseJsonOut(result);
    // Nobody arrived late: no rank is named by arrival.
    EXPECT_TRUE(report["slowest_rank"].is_null() || report["slowest_rank"]["basis"] != "arrival")
        << report["slowest_rank"].dump();
    ASSERT_TRUE(report["arrivals"].is_object()) << report.dump();
    EXPECT_EQ(report["arrivals"]["measurements"], 18);
    EXPECT_EQ(report["arrivals"]["flat"], true) << report["arrivals"].dump();
    // The path when the schedules are flat too, "cannot tell" when a loaded
    // machine starved several ranks alike. A loaded machine can also really
    // starve one worker (CI's ASan stage beside three builds: 15.8 % of one
    // rank's timed calls, the others 0 %): naming it is then the truth, and
    // what the test holds is that it is named only with a stall past the
    // line (kMinStalledShare) that the schedule shows.
    const nlohmann::json& culprit = report["culprit"];
    ASSERT_TRUE(culprit.is_object()) << report.dump();
    if (culprit["kind"] == "descheduled_rank" || culprit["kind"] == "descheduled_host") {
      EXPECT_EQ(culprit["schedule"]["flat"], false) << culprit.dump(2);
      if (culprit["kind"] == "descheduled_rank") {
        const int rank = culprit["rank"].get<int>();
        EXPECT_GE(culprit["schedule"]["rank_stalled_pct"][rank].get<double>(), 15.0)
            << culprit.dump(2);
      }
    } else {
      EXPECT_TRUE(culprit["kind"] == "path" || culprit["kind"] == "unknown") << culprit.dump(2);
    }
    std::printf("healthy run %d: %s: %s\n", run, culprit["kind"].dump().c_str(),
                culprit["reason"].get<std::string>().c_str());
  }
}

TEST(SplitRailsTest, FourRailsEachWithResults) {
  LocalCluster cluster;
  StartCluster(cluster, 4, "");
  CliResult result = cluster.Ebctl(Sweep({"--json", "--split-rails"}));
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  nlohmann::json report = ParseJsonOut(result);
  EXPECT_EQ(report["config"]["split_rails"], true);
  EXPECT_EQ(report["results"].size(), 5u);
  const nlohmann::json& rails = report["rails"];
  ASSERT_EQ(rails.size(), 4u) << report.dump();
  for (int rail = 0; rail < 4; ++rail) {
    SCOPED_TRACE(absl::StrCat("rail ", rail));
    EXPECT_EQ(rails[rail]["rail"], rail);
    ASSERT_EQ(rails[rail]["members"].size(), 2u);
    EXPECT_EQ(rails[rail]["members"][0]["node"], "host0");
    EXPECT_EQ(rails[rail]["members"][0]["rank"], rail);
    EXPECT_EQ(rails[rail]["members"][1]["node"], "host1");
    EXPECT_EQ(rails[rail]["members"][1]["rank"], 4 + rail);
    ASSERT_EQ(rails[rail]["results"].size(), 5u);
    for (const nlohmann::json& row : rails[rail]["results"]) {
      EXPECT_GT(row["out_of_place"]["bus_bw"].get<double>(), 0) << row.dump();
      EXPECT_EQ(row["out_of_place"]["nwrong"], 0);
      EXPECT_EQ(row["in_place"]["nwrong"], 0);
      // Two members, each with its time.
      EXPECT_EQ(row["out_of_place"]["rank_times"].size(), 2u);
    }
    EXPECT_GT(rails[rail]["avg_busbw"].get<double>(), 0);
  }
}

TEST(SplitRailsTest, ASlowedWorkerShowsUpOnItsRailOnly) {
  LocalCluster cluster;
  // Rank 6 = host1, slot 2: rail 2.
  StartCluster(cluster, 4, "slow=20:rank=6");
  // A rail has two members, so the straggler must be late in a count of
  // measurements that chance reaches at most 1 % of the time: 10 of 10 with
  // 5 sizes, where one measurement whose call a loaded machine stalled
  // (TSan, 1 of 5 loaded runs: 16 ms late in a 77 ms call) left rank 6
  // unnamed. 13 sizes (26 measurements) leave room for a few such stalls.
  CliResult result = cluster.Ebctl(Sweep({"--json", "--split-rails"}, "2"));
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  nlohmann::json report = ParseJsonOut(result);
  const nlohmann::json& rails = report["rails"];
  ASSERT_EQ(rails.size(), 4u) << report.dump();
  EXPECT_EQ(rails[2]["slow"], true) << rails[2].dump();
  ASSERT_TRUE(rails[2]["straggler"].is_object()) << rails[2].dump();
  EXPECT_EQ(rails[2]["straggler"]["rank"], 6);
  EXPECT_EQ(rails[2]["straggler"]["node"], "host1");
  for (int rail : {0, 1, 3}) {
    SCOPED_TRACE(absl::StrCat("rail ", rail));
    // Whether a healthy rail's busbw is within 10% of the median is up to
    // the load of a shared 2-core machine (8 workers and 4 rails at once);
    // that none of its members held it up is not, in the plain build. Under
    // a sanitizer (EB_TEST_SLOWDOWN > 1: every process 3-15 times slower,
    // another test beside it) a healthy member was once late enough to be
    // named: those runs check memory and races, the plain run the timing.
    if (LocalCluster::TestSlowdown() == 1) {
      EXPECT_TRUE(rails[rail]["straggler"].is_null()) << rails[rail]["straggler"].dump();
    }
  }
  EXPECT_EQ(report["slowest_rank"]["rank"], 6);

  // The text names the rail, its node and slot, and the late member.
  CliResult text = cluster.Ebctl(Sweep({"--split-rails"}, "2"));  // 26 measurements, as above
  ASSERT_EQ(text.exit_code, 0) << text.err << text.out;
  EXPECT_THAT(text.out, HasSubstr("# rail 2: host0 slot 2, host1 slot 2\n"));
  EXPECT_THAT(text.out, ContainsRegex("# rail 2: avg busbw [^\n]* of the rail median: SLOW\n"));
  EXPECT_THAT(text.out, HasSubstr("#   rail 2: host1 slot 2 (rank 6) arrived last in"));
  // A healthy rail's member named late: the same load question as above,
  // checked where the timing is the plain run's.
  if (LocalCluster::TestSlowdown() == 1) {
    for (int rail : {0, 1, 3}) {
      EXPECT_THAT(text.out, Not(HasSubstr(absl::StrCat("#   rail ", rail, ": host"))));
    }
  }
}

}  // namespace
}  // namespace eb::testing
