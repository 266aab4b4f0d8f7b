// Rank times that cannot all be true (issue 32 item 3, P2-4d): the finish
// check over the cases a real run produces (a late rank of a blocking
// backend, an early starter of an asynchronous one) and the lie it is for.

#include "coordinator/core/collective_tests/rank_time_consistency.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::IsEmpty;
using ::testing::SizeIs;

struct RankFigures {
  double arrival_us;
  double time_us;
};

// One row whose two variants both carry `ranks`' figures.
v1::SizeResult Row(int64_t size_bytes, const std::vector<RankFigures>& ranks) {
  v1::SizeResult row;
  row.set_size_bytes(size_bytes);
  for (v1::VariantResult* variant : {row.mutable_out_of_place(), row.mutable_in_place()}) {
    for (const RankFigures& rank : ranks) {
      variant->add_rank_time_us(rank.time_us);
      variant->add_rank_arrival_us(rank.arrival_us);
    }
  }
  return row;
}

// An all_reduce report of `rows`, one rank map entry per rank of the rows.
v1::TestReport Rows(std::vector<v1::SizeResult> rows,
                    v1::Collective collective = v1::COLLECTIVE_ALL_REDUCE) {
  v1::TestReport report;
  report.mutable_spec()->set_collective(collective);
  const int ranks = rows.empty() ? 0 : rows[0].out_of_place().rank_time_us_size();
  for (int rank = 0; rank < ranks; ++rank) report.add_ranks()->set_node_name("n");
  for (v1::SizeResult& row : rows) *report.add_results() = std::move(row);
  return report;
}

// The P2-4d reproduction's figures: 2,104 us per call honestly, a node whose
// clock runs 10 times slow reports 211 us and an arrival 10 times early.
TEST(RankTimeConsistencyTest, AClockTenTimesSlowIsNamedWithBothFigures) {
  const auto rows = Rows({Row(33554432, {{30, 211}, {300, 2104}})});
  const std::vector<ImpossibleFinish> found = FindImpossibleFinishes(rows);
  ASSERT_THAT(found, SizeIs(1));
  EXPECT_EQ(found[0].rank, 0);
  EXPECT_EQ(found[0].measurements, 2);
  EXPECT_EQ(found[0].of, 2);
  EXPECT_EQ(found[0].size_bytes, 33554432);
  EXPECT_DOUBLE_EQ(found[0].finish_us, 241);
  EXPECT_DOUBLE_EQ(found[0].others_median_us, 2404);
}

// Only its time forged, arrival honest: on an asynchronous backend the
// arrival is the start, so the finish is as short as the time.
TEST(RankTimeConsistencyTest, OnlyTheTimeForgedIsNamedAmongEightRanks) {
  std::vector<RankFigures> ranks(8, {40, 2104});
  ranks[5] = {35, 210};
  const auto rows = Rows({Row(1 << 20, ranks), Row(1 << 21, ranks)});
  const std::vector<ImpossibleFinish> found = FindImpossibleFinishes(rows);
  ASSERT_THAT(found, SizeIs(1));
  EXPECT_EQ(found[0].rank, 5);
  EXPECT_EQ(found[0].measurements, 4);
}

// CI's case that withdrew the first check (Gloo all_reduce, 64 B): a rank
// that started 32 ms late has a tenth of the others' time, and its arrival
// makes up for it: consistent.
TEST(RankTimeConsistencyTest, ALateRankOfABlockingBackendIsConsistent) {
  const auto rows = Rows({Row(64, {{1600 + 1420, 149}, {1420, 1743}, {1425, 1741}})});
  EXPECT_THAT(FindImpossibleFinishes(rows), IsEmpty());
}

// NCCL issues every call at once: most ranks starting 5 ms late lowers
// nobody's finish below theirs except the early starter's, whose time is
// the longest: consistent.
TEST(RankTimeConsistencyTest, AnEarlyStarterOfAnAsynchronousBackendIsConsistent) {
  const auto rows = Rows({Row(1 << 26, {{0, 2500}, {5000, 2250}, {5100, 2245}, {5050, 2248}})});
  EXPECT_THAT(FindImpossibleFinishes(rows), IsEmpty());
}

// Below the gap a start skew can make, nothing is impossible: latency-bound
// sizes where every figure is tens of microseconds.
TEST(RankTimeConsistencyTest, SmallGapsAtSmallSizesAreNoise) {
  const auto rows = Rows({Row(8, {{5, 3}, {40, 30}, {42, 31}})});
  EXPECT_THAT(FindImpossibleFinishes(rows), IsEmpty());
}

// One impossible measurement among many is not enough: a rank is named at
// kMinImpossibleMeasurements.
TEST(RankTimeConsistencyTest, OneMeasurementOfManyIsNotEnough) {
  v1::SizeResult odd = Row(1 << 20, {{30, 211}, {300, 2104}});
  odd.mutable_in_place()->set_rank_time_us(0, 2104);
  odd.mutable_in_place()->set_rank_arrival_us(0, 300);
  const auto rows = Rows({odd, Row(1 << 21, {{300, 2104}, {300, 2104}})});
  EXPECT_THAT(FindImpossibleFinishes(rows), IsEmpty());
}

// A rooted collective does not bind every rank's end (a Gloo reduce's
// non-root ranks finish once their data is buffered): not judged.
TEST(RankTimeConsistencyTest, RootedAndPointToPointCollectivesAreNotJudged) {
  for (const v1::Collective collective :
       {v1::COLLECTIVE_REDUCE, v1::COLLECTIVE_BROADCAST, v1::COLLECTIVE_SEND_RECV}) {
    EXPECT_THAT(FindImpossibleFinishes(Rows({Row(1 << 18, {{30, 5}, {2100, 200}})}, collective)),
                IsEmpty());
  }
  EXPECT_THAT(FindImpossibleFinishes(
                  Rows({Row(1 << 18, {{30, 5}, {2100, 200}})}, v1::COLLECTIVE_ALL_TO_ALL)),
              SizeIs(1));
}

// Without arrivals (an older worker) nothing can be said.
TEST(RankTimeConsistencyTest, MeasurementsWithoutArrivalsAreSkipped) {
  v1::SizeResult row = Row(1 << 20, {{30, 211}, {300, 2104}});
  row.mutable_out_of_place()->clear_rank_arrival_us();
  row.mutable_in_place()->clear_rank_arrival_us();
  EXPECT_THAT(FindImpossibleFinishes(Rows({row})), IsEmpty());
}

}  // namespace
}  // namespace eb::coordinator
