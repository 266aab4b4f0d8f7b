// Culprit attribution by a cgroup's CPU limit (RankSchedule.throttled_us,
// culprit.h kMinThrottledShare; docs/RELIABILITY.md "CPU limits"), over
// hand-built reports: the kernel's throttled time names a part under the
// ticker's 15 % floor, and never against another signal. No processes.

#include <string>
#include <vector>

#include "coordinator/validation/culprit.h"
#include "coordinator/validation/straggler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::validation {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::HasSubstr;
using ::testing::Not;

// Rank r on node "node<r/2>", slot r%2.
v1::TestReport LimitedRanks(int ranks) {
  v1::TestReport report;
  for (int r = 0; r < ranks; ++r) {
    v1::RankAssignment* rank = report.add_ranks();
    rank->set_rank(r);
    rank->set_node_name("node" + std::to_string(r / 2));
    rank->set_local_rank(r % 2);
  }
  return report;
}

// `sizes` rows, both variants, each rank's batch of 100 ms: its arrival,
// stalled and throttled microseconds.
void AddRows(v1::TestReport& report, int sizes, const std::vector<double>& arrivals,
             const std::vector<double>& stalled, const std::vector<double>& throttled) {
  for (int size = 0; size < sizes; ++size) {
    v1::SizeResult* row = report.add_results();
    for (v1::VariantResult* variant : {row->mutable_out_of_place(), row->mutable_in_place()}) {
      variant->set_time_us(10000);
      for (double arrival : arrivals) variant->add_rank_arrival_us(arrival);
      for (size_t r = 0; r < stalled.size(); ++r) {
        v1::RankSchedule* schedule = variant->add_rank_schedule();
        schedule->set_wall_us(100000);
        schedule->set_stalled_us(stalled[r]);
        schedule->set_throttled_us(throttled[r]);
      }
    }
  }
}

CulpritFinding DecideWithLimits(const v1::TestReport& report) {
  return DecideCulprit(report, AttributeStraggler(report));
}

// Culprit scoring's cpu_quota misses (RELIABILITY.md): the quota's rank
// stalled 9.2 %, the others at most 0.5 %: under the ticker's floor, so
// "the path" before the limit was read.
TEST(CpuLimitCulpritTest, ARankHeldBackByItsLimitIsNamedUnderTheTickersFloor) {
  v1::TestReport report = LimitedRanks(4);
  AddRows(report, 5, {5, 6, 7, 6}, {500, 9200, 300, 100}, {0, 8800, 0, 0});
  const CulpritFinding f = DecideWithLimits(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_DESCHEDULED_RANK);
  ASSERT_TRUE(f.rank.has_value());
  EXPECT_EQ(f.rank->rank(), 1);
  EXPECT_EQ(f.rank->node_name(), "node0");
  EXPECT_EQ(f.rank->basis(), "cpu_limit");
  EXPECT_DOUBLE_EQ(f.rank->mean_excess_pct(), 8.8);
  EXPECT_THAT(f.reason, HasSubstr("rank 1 (node0 slot 1) was held back by a CPU limit 8.8% of its "
                                  "timed calls"));
  EXPECT_THAT(f.reason, Not(HasSubstr("the path")));
  ASSERT_TRUE(f.schedule.has_value());
  ASSERT_EQ(f.schedule->rank_throttled_pct_size(), 4);
  EXPECT_DOUBLE_EQ(f.schedule->rank_throttled_pct(1), 8.8);
  EXPECT_DOUBLE_EQ(f.schedule->rank_throttled_pct(0), 0.0);
}

// A limit on the agent's service (CPUQuota=) holds back every worker it
// spawned: the node's ranks alone.
TEST(CpuLimitCulpritTest, ANodesRanksHeldBackAloneNameTheHost) {
  v1::TestReport report = LimitedRanks(4);
  AddRows(report, 5, {5, 6, 7, 6}, {400, 300, 11000, 12500}, {0, 0, 10500, 12000});
  const CulpritFinding f = DecideWithLimits(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_DESCHEDULED_HOST);
  EXPECT_EQ(f.node, "node1");
  EXPECT_THAT(f.reason, HasSubstr("2 ranks of node1 were held back by a CPU limit 10.5% to 12.0%"));
}

TEST(CpuLimitCulpritTest, UnderTheFloorItNamesNobody) {
  v1::TestReport report = LimitedRanks(4);
  AddRows(report, 5, {5, 6, 7, 6}, {400, 4000, 300, 100}, {0, 4900, 0, 0});
  const CulpritFinding f = DecideWithLimits(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_PATH);
  EXPECT_FALSE(f.rank.has_value());
}

// A limit every rank hits alike (every pod limited) is no one part: the
// ticker's common stall decides, and the reason says the limit was felt.
TEST(CpuLimitCulpritTest, ALimitEveryRankHitsAlikeNamesNoPartButIsSaid) {
  v1::TestReport report = LimitedRanks(4);
  AddRows(report, 5, {5, 6, 7, 6}, {8000, 8300, 7900, 8100}, {7600, 8000, 7500, 7900});
  const CulpritFinding f = DecideWithLimits(report);
  EXPECT_FALSE(f.rank.has_value());
  EXPECT_TRUE(f.node.empty());
  EXPECT_THAT(f.reason, HasSubstr("every rank was held back by a CPU limit 7.6% to 8.0%"));
}

// Rank 3 stopped by SIGSTOP (the ticker) while rank 1's limit held it back:
// two parts, neither named.
TEST(CpuLimitCulpritTest, ALimitAndATickerNamingOtherPartsCannotTell) {
  v1::TestReport report = LimitedRanks(4);
  AddRows(report, 5, {5, 6, 7, 6}, {300, 9000, 200, 30000}, {0, 8500, 0, 0});
  const CulpritFinding f = DecideWithLimits(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_UNKNOWN);
  EXPECT_THAT(f.reason, HasSubstr("rank 1 (node0 slot 1) was held back by a CPU limit"));
  EXPECT_THAT(f.reason, HasSubstr("rank 3 (node1 slot 1) was stalled 30.0%"));
}

// Both say the same rank: the limit names it, the ticker's figure beside.
TEST(CpuLimitCulpritTest, ALimitAndATickerNamingTheSameRankAgree) {
  v1::TestReport report = LimitedRanks(4);
  AddRows(report, 5, {5, 6, 7, 6}, {300, 400, 31000, 200}, {0, 0, 29000, 0});
  const CulpritFinding f = DecideWithLimits(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_DESCHEDULED_RANK);
  ASSERT_TRUE(f.rank.has_value());
  EXPECT_EQ(f.rank->rank(), 2);
  EXPECT_EQ(f.rank->basis(), "cpu_limit");
  EXPECT_THAT(f.reason, HasSubstr("held back by a CPU limit 29.0%"));
  EXPECT_THAT(f.reason, HasSubstr("was stalled 31.0%"));
}

// A rank late at the calls because its limit held it back: arrivals name
// it, the limit says why.
TEST(CpuLimitCulpritTest, ALateRankHeldBackByItsLimitIsExplainedByIt) {
  v1::TestReport report = LimitedRanks(4);
  AddRows(report, 5, {5, 6, 30007, 6}, {300, 400, 9000, 200}, {0, 0, 8500, 0});
  const CulpritFinding f = DecideWithLimits(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_DESCHEDULED_RANK);
  ASSERT_TRUE(f.rank.has_value());
  EXPECT_EQ(f.rank->rank(), 2);
  EXPECT_THAT(f.reason, HasSubstr("arrived last"));
  EXPECT_THAT(f.reason, HasSubstr("held back by a CPU limit 8.5%"));
}

// A failure that ended the test is its culprit, whatever a limit said
// about the rows before it.
TEST(CpuLimitCulpritTest, AFailureStillDecides) {
  v1::TestReport report = LimitedRanks(4);
  AddRows(report, 5, {5, 6, 7, 6}, {300, 9000, 200, 100}, {0, 8500, 0, 0});
  v1::Failure* failure = report.add_failures();
  failure->set_kind(v1::FAILURE_KIND_WORKER_HUNG);
  failure->set_rank(3);
  failure->set_node_name("node1");
  failure->set_message("rank 3 sent no heartbeat for 2.5 s");
  const CulpritFinding f = DecideWithLimits(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_FAILURE);
  EXPECT_EQ(f.node, "node1");
}

}  // namespace
}  // namespace eb::validation
