#include "coordinator/ebctl/output/per_iter_json.h"

#include "gtest/gtest.h"

namespace eb::ebctl {
namespace {

namespace v1 = ebnccl::v1;
using nlohmann::json;

TEST(ComputeIterStatsTest, MatchesNcclTestsDefinitions) {
  // nccl-tests computeIterStats: p50 = sorted[n/2]; p95/p99 =
  // sorted[min(n-1, ceil(n*p/100)-1)]; population stdev.
  std::vector<double> times;
  for (int i = 100; i >= 1; --i) times.push_back(i);
  const IterStats stats = ComputeIterStats(times);
  EXPECT_EQ(stats.min, 1);
  EXPECT_EQ(stats.max, 100);
  EXPECT_EQ(stats.p50, 51);
  EXPECT_EQ(stats.p95, 95);
  EXPECT_EQ(stats.p99, 99);
  EXPECT_DOUBLE_EQ(stats.avg, 50.5);
  EXPECT_NEAR(stats.stdev, 28.8660700477, 1e-9);
}

TEST(ComputeIterStatsTest, SmallSeries) {
  const IterStats stats = ComputeIterStats({3, 1, 2});
  EXPECT_EQ(stats.p50, 2);
  EXPECT_EQ(stats.p95, 3);
  EXPECT_EQ(stats.p99, 3);
  EXPECT_EQ(ComputeIterStats({}).max, 0);
}

TEST(PerIterToJsonTest, NullWithoutTimes) {
  EXPECT_TRUE(PerIterToJson(v1::VariantResult()).is_null());
}

TEST(PerIterToJsonTest, OneRankHasNoPerProcessRows) {
  v1::VariantResult variant;
  v1::IterationTimes& only = *variant.add_rank_iterations();
  only.add_time_us(4);
  only.add_time_us(2);
  const json out = PerIterToJson(variant);
  EXPECT_EQ(out["times_us"], json::parse("[4.0, 2.0]"));
  EXPECT_EQ(out["skipped_iterations"], 0);
  EXPECT_DOUBLE_EQ(out["avg_us"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(out["cv_pct"].get<double>(), 100.0 / 3);
  EXPECT_FALSE(out.contains("per_process_max_times_us"));
}

TEST(PerIterToJsonTest, MaxOverRanksPerIteration) {
  v1::VariantResult variant;
  for (const auto& times : {std::vector<double>{1, 5, 3}, std::vector<double>{2, 4, 6}}) {
    v1::IterationTimes& row = *variant.add_rank_iterations();
    for (double t : times) row.add_time_us(t);
  }
  const json out = PerIterToJson(variant);
  EXPECT_EQ(out["times_us"], json::parse("[2.0, 5.0, 6.0]"));
  EXPECT_EQ(out["per_process_max_times_us"], json::parse("[[1.0, 5.0, 3.0], [2.0, 4.0, 6.0]]"));
  EXPECT_EQ(out["min_us"], 2.0);
  EXPECT_EQ(out["max_us"], 6.0);
}

}  // namespace
}  // namespace eb::ebctl
