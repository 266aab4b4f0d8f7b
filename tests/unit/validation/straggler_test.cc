// FindSlowestRank over hand-built measurements: one table row per rule.

#include "coordinator/validation/straggler.h"

#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/ebctl/test_reports.h"

namespace eb::validation {
namespace {

namespace v1 = ebnccl::v1;

// One variant (out-of-place or in-place) of one size.
struct Measurement {
  int32_t slowest_rank;
  double time_us;  // the rank average
  double min_time_us;
  double max_time_us;
  // Entries of rank_time_us (their values do not matter); 0 leaves the list
  // empty, as reports without per-rank times have it.
  int rank_times = 2;
};

struct Expected {
  int32_t rank;
  std::string node_name;
  int32_t local_rank;
  int32_t slowest_count;
  int32_t measurements;
  double mean_excess_pct;
};

struct Case {
  std::string name;
  // Ranks in the rank map: rank r on node "node<r/2>", slot r%2.
  int ranks;
  // Measurements in pairs: each pair is one size (out-of-place, in-place).
  std::vector<Measurement> measurements;
  std::optional<Expected> expected;
};

v1::TestReport MakeReport(const Case& c) {
  v1::TestReport report;
  for (int r = 0; r < c.ranks; ++r) {
    v1::RankAssignment* rank = report.add_ranks();
    rank->set_rank(r);
    rank->set_node_name("node" + std::to_string(r / 2));
    rank->set_local_rank(r % 2);
  }
  for (size_t i = 0; i < c.measurements.size(); i += 2) {
    v1::SizeResult* row = report.add_results();
    for (size_t j = i; j < i + 2 && j < c.measurements.size(); ++j) {
      const Measurement& m = c.measurements[j];
      v1::VariantResult* variant = j == i ? row->mutable_out_of_place() : row->mutable_in_place();
      variant->set_slowest_rank(m.slowest_rank);
      variant->set_time_us(m.time_us);
      variant->set_min_time_us(m.min_time_us);
      variant->set_max_time_us(m.max_time_us);
      for (int t = 0; t < m.rank_times; ++t) variant->add_rank_time_us(m.min_time_us);
    }
  }
  return report;
}

class FindSlowestRankTest : public ::testing::TestWithParam<Case> {};

TEST_P(FindSlowestRankTest, MatchesTheTable) {
  const Case& c = GetParam();
  const std::optional<v1::SlowestRank> got = FindSlowestRank(MakeReport(c));
  if (!c.expected.has_value()) {
    EXPECT_FALSE(got.has_value()) << got->DebugString();
    return;
  }
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->rank(), c.expected->rank);
  EXPECT_EQ(got->node_name(), c.expected->node_name);
  EXPECT_EQ(got->local_rank(), c.expected->local_rank);
  EXPECT_EQ(got->slowest_count(), c.expected->slowest_count);
  EXPECT_EQ(got->measurements(), c.expected->measurements);
  EXPECT_NEAR(got->mean_excess_pct(), c.expected->mean_excess_pct, 1e-9);
}

const Case kCases[] = {
    {"NoResults", 2, {}, std::nullopt},
    {"OneRank", 1, {{0, 10, 10, 12, 1}, {0, 10, 10, 12, 1}}, std::nullopt},
    {"EqualTimesCreditNobody", 2, {{0, 10, 10, 10}, {0, 10, 10, 10}}, std::nullopt},
    {"UnknownSlowestRankIsSkipped", 2, {{-1, 10, 9, 11}, {-1, 10, 9, 11}}, std::nullopt},
    // 12/10 and 15/10 above the mean: (20% + 50%) / 2.
    {"OneRankSlowInEveryMeasurement",
     4,
     {{3, 10, 8, 12, 4}, {3, 10, 8, 15, 4}},
     Expected{3, "node1", 1, 2, 2, 35.0}},
    // Rank 1 is slowest twice, rank 0 once; the excess averages only
    // rank 1's measurements.
    {"MostOftenWins",
     2,
     {{1, 100, 90, 110}, {0, 100, 90, 130}, {1, 100, 90, 120}, {0, 100, 100, 100}},
     Expected{1, "node0", 1, 2, 3, 15.0}},
    {"TieGoesToTheLowerRank",
     4,
     {{2, 10, 9, 11, 4}, {1, 10, 9, 12, 4}},
     Expected{1, "node0", 1, 1, 2, 20.0}},
    // Without per-rank times, the rank map says how many ranks there were.
    {"RankCountFromTheRankMap",
     2,
     {{1, 10, 9, 11, 0}, {1, 10, 9, 11, 0}},
     Expected{1, "node0", 1, 2, 2, 10.0}},
    {"OneRankWithoutPerRankTimes", 1, {{0, 10, 9, 11, 0}}, std::nullopt},
    // A zero mean time counts the measurement but adds no excess.
    {"ZeroMeanTimeAddsNoExcess",
     2,
     {{1, 0, 9, 11}, {1, 10, 9, 11}},
     Expected{1, "node0", 1, 2, 2, 5.0}},
    // Healthy-run noise (0.1-0.3%) names nobody (issue 16).
    {"NoiseBelowTheThresholdNamesNobody",
     4,
     {{3, 1000, 999, 1003, 4}, {3, 1000, 998, 1002, 4}, {2, 1000, 999, 1001, 4}},
     std::nullopt},
    // Just above it, it does.
    {"ExcessAtTheThresholdNamesTheRank",
     2,
     {{1, 100, 95, 105}, {1, 100, 95, 105}},
     Expected{1, "node0", 1, 2, 2, 5.0}},
    // A corrupt report whose rank map lacks the rank: no node, slot -1.
    {"RankMissingFromTheMap",
     2,
     {{5, 10, 9, 11, 6}, {5, 10, 9, 11, 6}},
     Expected{5, "", -1, 2, 2, 10.0}},
};

INSTANTIATE_TEST_SUITE_P(Table, FindSlowestRankTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& param) {
                           return param.param.name;
                         });

// ebctl's view tests render the slowest rank stored in their fixture; it is
// what the coordinator computes for that report.
TEST(FindSlowestRankFixtureTest, AgreesWithTheEbctlFixture) {
  v1::TestReport report = ebctl::testing::TwoRankReport();
  const v1::SlowestRank stored = report.slowest_rank();
  report.clear_slowest_rank();
  const std::optional<v1::SlowestRank> computed = FindSlowestRank(report);
  ASSERT_TRUE(computed.has_value());
  EXPECT_EQ(computed->rank(), stored.rank());
  EXPECT_EQ(computed->node_name(), stored.node_name());
  EXPECT_EQ(computed->local_rank(), stored.local_rank());
  EXPECT_EQ(computed->slowest_count(), stored.slowest_count());
  EXPECT_EQ(computed->measurements(), stored.measurements());
  EXPECT_NEAR(computed->mean_excess_pct(), stored.mean_excess_pct(), 1e-9);
}

}  // namespace
}  // namespace eb::validation
