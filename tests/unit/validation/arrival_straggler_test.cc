// Straggler attribution by arrival (AttributeStraggler, AttributeByArrival)
// and the judging of rails (JudgeRails), over hand-built reports.

#include <optional>
#include <string>
#include <vector>

#include "coordinator/validation/rails.h"
#include "coordinator/validation/straggler.h"
#include "gtest/gtest.h"

namespace eb::validation {
namespace {

namespace v1 = ebnccl::v1;

// Rank r on node "node<r/2>", slot r%2.
v1::TestReport Ranks(int ranks) {
  v1::TestReport report;
  for (int r = 0; r < ranks; ++r) {
    v1::RankAssignment* rank = report.add_ranks();
    rank->set_rank(r);
    rank->set_node_name("node" + std::to_string(r / 2));
    rank->set_local_rank(r % 2);
  }
  return report;
}

// One size whose two variants both have `arrivals` (one per rank) and a
// call time of `time_us`; equal times on every rank, as in a collective.
void AddRow(google::protobuf::RepeatedPtrField<v1::SizeResult>& rows,
            const std::vector<double>& arrivals, double time_us) {
  v1::SizeResult* row = rows.Add();
  for (v1::VariantResult* variant : {row->mutable_out_of_place(), row->mutable_in_place()}) {
    variant->set_time_us(time_us);
    variant->set_min_time_us(time_us);
    variant->set_max_time_us(time_us);
    for (double arrival : arrivals) {
      variant->add_rank_time_us(time_us);
      variant->add_rank_arrival_us(arrival);
    }
  }
}

TEST(AttributeStragglerTest, NamesTheRankThatArrivesLastWithItsLag) {
  v1::TestReport report = Ranks(4);
  // Rank 3 pauses 30 ms before each call: everyone's time is ~30 ms.
  for (int size = 0; size < 3; ++size) {
    AddRow(*report.mutable_results(), {5, 7, 6, 30006}, 30050);
  }
  Attribution a = AttributeStraggler(report);
  ASSERT_TRUE(a.slowest.has_value());
  EXPECT_EQ(a.slowest->rank(), 3);
  EXPECT_EQ(a.slowest->node_name(), "node1");
  EXPECT_EQ(a.slowest->local_rank(), 1);
  EXPECT_EQ(a.slowest->basis(), "arrival");
  EXPECT_EQ(a.slowest->slowest_count(), 6);
  EXPECT_EQ(a.slowest->measurements(), 6);
  EXPECT_DOUBLE_EQ(a.slowest->mean_lag_us(), 30000);  // behind the median of 5, 6, 7
  EXPECT_NEAR(a.slowest->mean_excess_pct(), 99.8, 0.1);
  ASSERT_TRUE(a.arrivals.has_value());
  EXPECT_EQ(a.arrivals->measurements(), 6);
  EXPECT_EQ(a.arrivals->late_measurements(), 6);
  EXPECT_FALSE(a.arrivals->flat());
}

TEST(AttributeStragglerTest, FlatArrivalsNameNobodyAndSayPath) {
  v1::TestReport report = Ranks(4);
  // A slow network: long calls, everyone on time (jitter of tens of us).
  AddRow(*report.mutable_results(), {10, 40, 25, 30}, 50000);
  AddRow(*report.mutable_results(), {60, 10, 20, 30}, 50000);
  Attribution a = AttributeStraggler(report);
  EXPECT_FALSE(a.slowest.has_value());
  ASSERT_TRUE(a.arrivals.has_value());
  EXPECT_TRUE(a.arrivals->flat());
  EXPECT_EQ(a.arrivals->late_measurements(), 0);
}

TEST(AttributeStragglerTest, LagsBelowTheNoiseThresholdsDoNotCount) {
  v1::TestReport report = Ranks(2);
  // 90 us late: under kMinArrivalLagUs.
  AddRow(*report.mutable_results(), {0, 90}, 100);
  // 500 us late on a 4 ms call: under kMinArrivalLagShare.
  AddRow(*report.mutable_results(), {0, 500}, 4000);
  Attribution a = AttributeStraggler(report);
  EXPECT_FALSE(a.slowest.has_value());
  EXPECT_TRUE(a.arrivals->flat());
  EXPECT_EQ(a.arrivals->measurements(), 4);
}

TEST(AttributeStragglerTest, NoiseThatMovesBetweenRanksNamesNobody) {
  v1::TestReport report = Ranks(4);
  // Each rank late once by a lot (a descheduled process), never a majority.
  AddRow(*report.mutable_results(), {5000, 0, 0, 0}, 1000);
  AddRow(*report.mutable_results(), {0, 5000, 0, 0}, 1000);
  AddRow(*report.mutable_results(), {0, 0, 5000, 0}, 1000);
  AddRow(*report.mutable_results(), {0, 0, 0, 5000}, 1000);
  Attribution a = AttributeStraggler(report);
  EXPECT_FALSE(a.slowest.has_value());
  EXPECT_EQ(a.arrivals->late_measurements(), 8);
  EXPECT_TRUE(a.arrivals->flat());
}

TEST(AttributeStragglerTest, TwoRanksNeedMoreThanAMajorityToRuleOutChance) {
  // Two ranks, 10 measurements: rank 1 is late in 8 of them, by 3 ms of a
  // 5 ms call. A strict majority, yet one of two ranks is late that often
  // by chance 11 % of the time: nobody is named (CI once named a healthy
  // member of a two-member rail on 6 of 10).
  v1::TestReport report = Ranks(2);
  for (int size = 0; size < 4; ++size) AddRow(*report.mutable_results(), {0, 3000}, 5000);
  AddRow(*report.mutable_results(), {3000, 0}, 5000);
  Attribution a = AttributeStraggler(report);
  EXPECT_FALSE(a.slowest.has_value()) << a.slowest->DebugString();
  EXPECT_EQ(a.arrivals->late_measurements(), 10);
  EXPECT_TRUE(a.arrivals->flat());

  // Late in all 10: chance 0.2 %, named.
  report.mutable_results()->RemoveLast();
  AddRow(*report.mutable_results(), {0, 3000}, 5000);
  a = AttributeStraggler(report);
  ASSERT_TRUE(a.slowest.has_value());
  EXPECT_EQ(a.slowest->rank(), 1);
  EXPECT_EQ(a.slowest->slowest_count(), 10);
}

TEST(AttributeStragglerTest, EightRanksNeedOnlyTheMajority) {
  // 6 of 10 with eight ranks: chance 0.4 % (each rank late 1 time in 8).
  v1::TestReport report = Ranks(8);
  for (int size = 0; size < 3; ++size) {
    AddRow(*report.mutable_results(), {0, 0, 0, 0, 0, 3000, 0, 0}, 5000);
  }
  AddRow(*report.mutable_results(), {3000, 0, 0, 0, 0, 0, 0, 0}, 5000);
  AddRow(*report.mutable_results(), {0, 3000, 0, 0, 0, 0, 0, 0}, 5000);
  Attribution a = AttributeStraggler(report);
  ASSERT_TRUE(a.slowest.has_value());
  EXPECT_EQ(a.slowest->rank(), 5);
  EXPECT_EQ(a.slowest->slowest_count(), 6);
  EXPECT_EQ(a.slowest->measurements(), 10);
}

TEST(ChanceOfLateCountTest, IsTheBinomialTailSummedOverTheRanks) {
  // Two ranks: P(Bin(10, 1/2) >= 6) = 386/1024, twice (and exact here: two
  // ranks cannot both be late in 6 of 10).
  EXPECT_NEAR(ChanceOfLateCount(6, 10, 2), 2 * 386.0 / 1024, 1e-12);
  EXPECT_NEAR(ChanceOfLateCount(10, 10, 2), 2.0 / 1024, 1e-12);
  // Four ranks, 8 of 10: 4 x (45 x 3^2 + 10 x 3 + 1) / 4^10.
  EXPECT_NEAR(ChanceOfLateCount(8, 10, 4), 4 * 436.0 / 1048576, 1e-12);
  EXPECT_DOUBLE_EQ(ChanceOfLateCount(0, 10, 4), 1.0);
  EXPECT_DOUBLE_EQ(ChanceOfLateCount(11, 10, 4), 0.0);
  EXPECT_DOUBLE_EQ(ChanceOfLateCount(1, 10, 2), 1.0);  // capped
  // Large counts stay finite and small (lgamma, not factorials).
  EXPECT_LT(ChanceOfLateCount(900, 1000, 2), 1e-100);
  EXPECT_GT(ChanceOfLateCount(900, 1000, 2), 0.0);
}

// The smallest count each group size needs, over nccl-tests' default sweep
// of a rail test here (5 sizes x 2 variants) and over 50 measurements.
TEST(ChanceOfLateCountTest, TheCountsAStragglerNeeds) {
  auto needed = [](int measurements, int ranks) {
    for (int count = measurements / 2 + 1; count <= measurements; ++count) {
      if (ChanceOfLateCount(count, measurements, ranks) <= kMaxStragglerChance) return count;
    }
    return -1;
  };
  EXPECT_EQ(needed(10, 2), 10);
  EXPECT_EQ(needed(10, 4), 8);
  EXPECT_EQ(needed(10, 8), 6);  // the strict majority alone
  EXPECT_EQ(needed(50, 2), 35);
  EXPECT_EQ(needed(50, 16), 26);
  EXPECT_EQ(needed(4, 2), -1);  // four measurements cannot clear two ranks
}

TEST(AttributeStragglerTest, WithoutArrivalsFallsBackToTimes) {
  v1::TestReport report = Ranks(2);
  v1::SizeResult* row = report.add_results();
  for (v1::VariantResult* variant : {row->mutable_out_of_place(), row->mutable_in_place()}) {
    variant->set_time_us(150);
    variant->set_min_time_us(100);
    variant->set_max_time_us(200);
    variant->set_slowest_rank(1);
    variant->add_rank_time_us(100);
    variant->add_rank_time_us(200);
  }
  Attribution a = AttributeStraggler(report);
  ASSERT_TRUE(a.slowest.has_value());
  EXPECT_EQ(a.slowest->rank(), 1);
  EXPECT_EQ(a.slowest->basis(), "time");
  EXPECT_FALSE(a.arrivals.has_value());
}

TEST(AttributeStragglerTest, RowsWithoutEveryRanksArrivalAreSkipped) {
  v1::TestReport report = Ranks(4);
  AddRow(*report.mutable_results(), {0, 0, 9000}, 10000);  // 3 of 4 ranks
  Attribution a = AttributeStraggler(report);
  EXPECT_FALSE(a.arrivals.has_value());
}

// Two nodes x one slot per rail, split: rail r = {r, rails + r}.
v1::TestReport RailReport(const std::vector<double>& rail_busbw) {
  const int rails = static_cast<int>(rail_busbw.size());
  v1::TestReport report = Ranks(2 * rails);
  for (int rail = 0; rail < static_cast<int>(rail_busbw.size()); ++rail) {
    v1::RailResult* result = report.add_rails();
    result->set_rail(rail);
    for (int node = 0; node < 2; ++node) {
      v1::RailMember* member = result->add_members();
      member->set_rank(node * rails + rail);
      member->set_node_name("node" + std::to_string(node));
      member->set_device_index(rail);
    }
    result->set_avg_busbw_gbps(rail_busbw[rail]);
    AddRow(*result->mutable_results(), {0, 0}, 1000);
  }
  return report;
}

TEST(JudgeRailsTest, ARailBelowTheMedianIsSlowAndItsLateMemberNamed) {
  v1::TestReport report = RailReport({20, 20, 9, 21});
  // Rail 2's member on node1 (rank 6) is late in all 8 measurements: two
  // members need 8 of 8 before chance is ruled out (ChanceOfLateCount).
  report.mutable_rails(2)->clear_results();
  for (int size = 0; size < 4; ++size) {
    AddRow(*report.mutable_rails(2)->mutable_results(), {0, 20000}, 21000);
  }
  JudgeRails(report);
  EXPECT_FALSE(report.rails(0).slow());
  EXPECT_FALSE(report.rails(3).slow());
  EXPECT_TRUE(report.rails(2).slow());
  EXPECT_NEAR(report.rails(2).busbw_ratio(), 9.0 / 20.0, 1e-9);
  ASSERT_TRUE(report.rails(2).has_straggler());
  EXPECT_EQ(report.rails(2).straggler().rank(), 6);
  EXPECT_EQ(report.rails(2).straggler().node_name(), "node1");
  EXPECT_EQ(report.rails(2).straggler().local_rank(), 2);
  EXPECT_FALSE(report.rails(0).has_straggler());
}

TEST(JudgeRailsTest, OneRailIsNeverSlow) {
  v1::TestReport report = RailReport({5});
  JudgeRails(report);
  EXPECT_FALSE(report.rails(0).slow());
  EXPECT_DOUBLE_EQ(report.rails(0).busbw_ratio(), 1.0);
}

}  // namespace
}  // namespace eb::validation
