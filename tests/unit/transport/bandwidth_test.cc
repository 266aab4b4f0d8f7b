#include "common/transport/bandwidth.h"

#include <limits>
#include <vector>

#include "common/transport/types.h"
#include "gtest/gtest.h"

namespace eb::transport {
namespace {

constexpr double kTolerance = 1e-9;

// Golden values computed by hand from nccl-tests' *GetBw formulas.
TEST(BandwidthTest, AllReduceEightRanks) {
  // 64 MiB of float = 16777216 elements in 1000 us:
  // algbw = 67108864 B / 1e9 / 1e-3 s = 67.108864; busbw = * 2*7/8.
  const Bandwidth bw = ComputeBandwidth(Collective::kAllReduce, 16777216, 4, 8, 1000);
  EXPECT_NEAR(bw.algbw_gbps, 67.108864, kTolerance);
  EXPECT_NEAR(bw.busbw_gbps, 117.440512, kTolerance);
}

TEST(BandwidthTest, GatherLikeCollectivesCountAllRanks) {
  // all_gather, 8 ranks, 1 MiB float: count 32768, S = 32768*4*8 = 1048576 B
  // in 100 us: algbw 10.48576, busbw * 7/8 = 9.17504.
  for (Collective c : {Collective::kAllGather, Collective::kReduceScatter, Collective::kAllToAll}) {
    const Bandwidth bw = ComputeBandwidth(c, 32768, 4, 8, 100);
    EXPECT_NEAR(bw.algbw_gbps, 10.48576, kTolerance) << Name(c);
    EXPECT_NEAR(bw.busbw_gbps, 9.17504, kTolerance) << Name(c);
  }
}

TEST(BandwidthTest, FactorOneCollectives) {
  // 1e6 elements of double (8e6 B) in 2000 us: 4 GB/s, busbw the same.
  for (Collective c : {Collective::kBroadcast, Collective::kReduce, Collective::kSendRecv}) {
    const Bandwidth bw = ComputeBandwidth(c, 1000000, 8, 16, 2000);
    EXPECT_NEAR(bw.algbw_gbps, 4.0, kTolerance) << Name(c);
    EXPECT_NEAR(bw.busbw_gbps, 4.0, kTolerance) << Name(c);
  }
}

TEST(BandwidthTest, Factors) {
  EXPECT_DOUBLE_EQ(BusBwFactor(Collective::kAllReduce, 16), 1.875);
  EXPECT_DOUBLE_EQ(BusBwFactor(Collective::kAllReduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(BusBwFactor(Collective::kAllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBwFactor(Collective::kSendRecv, 4), 1.0);
  EXPECT_DOUBLE_EQ(AlgBwBytes(Collective::kAllToAll, 10, 2, 3), 60.0);
  EXPECT_DOUBLE_EQ(AlgBwBytes(Collective::kReduce, 10, 2, 3), 20.0);
}

TEST(BandwidthTest, NonPositiveTimeGivesZero) {
  EXPECT_EQ(ComputeBandwidth(Collective::kAllReduce, 100, 4, 2, 0).algbw_gbps, 0);
  EXPECT_EQ(ComputeBandwidth(Collective::kAllReduce, 100, 4, 2, -1).busbw_gbps, 0);
}

TEST(RankTimesTest, AveragesLikeNcclTestsAndFindsTheSlowestRank) {
  // all_reduce, 4 ranks, 1 MiB float; times 100, 300, 200, 400 us.
  const std::vector<double> times = {100, 300, 200, 400};
  auto s = SummarizeRankTimes(Collective::kAllReduce, 262144, 4, times);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_DOUBLE_EQ(s->avg_time_us, 250);
  EXPECT_DOUBLE_EQ(s->min_time_us, 100);
  EXPECT_DOUBLE_EQ(s->max_time_us, 400);
  EXPECT_EQ(s->slowest_rank, 3);
  // algbw from the average: 1048576 B / 250 us = 4.194304 GB/s; busbw * 1.5.
  EXPECT_NEAR(s->bandwidth.algbw_gbps, 4.194304, kTolerance);
  EXPECT_NEAR(s->bandwidth.busbw_gbps, 6.291456, kTolerance);
}

TEST(RankTimesTest, TiesPickTheLowestRank) {
  const std::vector<double> times = {5, 7, 7};
  auto s = SummarizeRankTimes(Collective::kBroadcast, 1, 4, times);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->slowest_rank, 1);
}

TEST(RankTimesTest, RejectsBadInput) {
  EXPECT_EQ(SummarizeRankTimes(Collective::kAllReduce, 1, 4, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  const std::vector<double> negative = {1, -2};
  EXPECT_EQ(SummarizeRankTimes(Collective::kAllReduce, 1, 4, negative).status().code(),
            absl::StatusCode::kInvalidArgument);
  const std::vector<double> nan = {1, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_EQ(SummarizeRankTimes(Collective::kAllReduce, 1, 4, nan).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace eb::transport
