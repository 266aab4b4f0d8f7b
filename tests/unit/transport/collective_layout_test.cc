#include "common/transport/collective_layout.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::transport {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kMiB = 1 << 20;

CollectiveLayout Layout(Collective c, int64_t size, size_t elt, int nranks) {
  auto layout = ComputeLayout(c, size, elt, nranks);
  EXPECT_TRUE(layout.ok()) << layout.status();
  return layout.value_or(CollectiveLayout{});
}

// Golden values computed by hand from nccl-tests' *GetCollByteCount and
// setupArgs (count = size / eltSize; chunk = (count / nranks) &
// ~(16/eltSize - 1)).
TEST(CollectiveLayoutTest, AllGatherEightRanksOneMiBFloat) {
  const CollectiveLayout l = Layout(Collective::kAllGather, kMiB, 4, 8);
  EXPECT_EQ(l.param_count, 32768);
  EXPECT_EQ(l.send_count, 32768);
  EXPECT_EQ(l.recv_count, 262144);
  EXPECT_EQ(l.send_inplace_offset, 32768);
  EXPECT_EQ(l.recv_inplace_offset, 0);
  EXPECT_EQ(l.send_bytes(), 131072);
  EXPECT_EQ(l.recv_bytes(), kMiB);
  EXPECT_EQ(l.printed_size_bytes(), kMiB);
}

TEST(CollectiveLayoutTest, ReduceScatterEightRanksOneMiBFloat) {
  const CollectiveLayout l = Layout(Collective::kReduceScatter, kMiB, 4, 8);
  EXPECT_EQ(l.param_count, 32768);
  EXPECT_EQ(l.send_count, 262144);
  EXPECT_EQ(l.recv_count, 32768);
  EXPECT_EQ(l.send_inplace_offset, 0);
  EXPECT_EQ(l.recv_inplace_offset, 32768);
  EXPECT_EQ(l.printed_size_bytes(), kMiB);
}

TEST(CollectiveLayoutTest, ChunksAreSixteenByteAligned) {
  // alltoall, 3 ranks, 1000 B of int8: 1000/3 = 333, & ~15 = 320.
  CollectiveLayout l = Layout(Collective::kAllToAll, 1000, 1, 3);
  EXPECT_EQ(l.param_count, 320);
  EXPECT_EQ(l.send_count, 960);
  EXPECT_EQ(l.recv_count, 960);
  EXPECT_EQ(l.printed_size_bytes(), 960);
  // all_gather, 3 ranks, 1000 B of double: 125/3 = 41, & ~1 = 40.
  l = Layout(Collective::kAllGather, 1000, 8, 3);
  EXPECT_EQ(l.param_count, 40);
  EXPECT_EQ(l.recv_count, 120);
  EXPECT_EQ(l.printed_size_bytes(), 960);
  // reduce_scatter, 8 ranks, 100 B of float: 25/8 = 3, & ~3 = 0.
  l = Layout(Collective::kReduceScatter, 100, 4, 8);
  EXPECT_EQ(l.param_count, 0);
  EXPECT_EQ(l.printed_size_bytes(), 0);
}

TEST(CollectiveLayoutTest, WholeBufferCollectives) {
  for (Collective c : {Collective::kAllReduce, Collective::kBroadcast, Collective::kReduce,
                       Collective::kSendRecv}) {
    CollectiveLayout l = Layout(c, 1000, 4, 8);
    EXPECT_EQ(l.param_count, 250);
    EXPECT_EQ(l.send_count, 250);
    EXPECT_EQ(l.recv_count, 250);
    EXPECT_EQ(l.send_inplace_offset, 0);
    EXPECT_EQ(l.recv_inplace_offset, 0);
    EXPECT_EQ(l.printed_size_bytes(), 1000);
    // A size that is not a multiple of the element size rounds down.
    l = Layout(c, 7, 4, 8);
    EXPECT_EQ(l.param_count, 1);
    EXPECT_EQ(l.printed_size_bytes(), 4);
  }
}

TEST(CollectiveLayoutTest, RejectsBadArguments) {
  EXPECT_EQ(ComputeLayout(Collective::kAllReduce, -1, 4, 2).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ComputeLayout(Collective::kAllReduce, 8, 4, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ComputeLayout(Collective::kAllReduce, 8, 3, 2).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(SweepSizesTest, GeometricLikeNcclTests) {
  // all_reduce_perf -b 8 -e 64M -f 2: 8 B .. 64 MiB, 24 sizes.
  auto sizes = SweepSizes(8, 64 * kMiB, 2, 0);
  ASSERT_TRUE(sizes.ok()) << sizes.status();
  ASSERT_EQ(sizes->size(), 24u);
  EXPECT_EQ(sizes->front(), 8);
  EXPECT_EQ(sizes->back(), 64 * kMiB);
  for (size_t i = 1; i < sizes->size(); ++i) EXPECT_EQ((*sizes)[i], 2 * (*sizes)[i - 1]);

  EXPECT_THAT(*SweepSizes(1, 30, 3, 0), ElementsAre(1, 3, 9, 27));
  EXPECT_THAT(*SweepSizes(5, 5, 2, 0), ElementsAre(5));
}

TEST(SweepSizesTest, LinearSteps) {
  // -b 1M -e 4M -i 1M (no -f): 1, 2, 3, 4 MiB.
  EXPECT_THAT(*SweepSizes(kMiB, 4 * kMiB, 1, kMiB),
              ElementsAre(kMiB, 2 * kMiB, 3 * kMiB, 4 * kMiB));
  // Factor 0 also means "add step_bytes"; the last step may stop short.
  EXPECT_THAT(*SweepSizes(1000, 2500, 0, 1000), ElementsAre(1000, 2000));
  EXPECT_THAT(*SweepSizes(0, 2, 1, 1), ElementsAre(0, 1, 2));
}

TEST(SweepSizesTest, NeverOverflows) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  auto sizes = SweepSizes(1, kMax, 2, 0);
  ASSERT_TRUE(sizes.ok());
  EXPECT_EQ(sizes->size(), 63u);
  EXPECT_EQ(sizes->back(), int64_t{1} << 62);
  EXPECT_THAT(*SweepSizes(kMax - 10, kMax, 1, 5), ElementsAre(kMax - 10, kMax - 5, kMax));
}

TEST(SweepSizesTest, CapsTheNumberOfSizes) {
  auto ok = SweepSizes(1, kMaxSweepSizes, 1, 1);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(static_cast<int64_t>(ok->size()), kMaxSweepSizes);
  auto too_many = SweepSizes(1, kMaxSweepSizes + 1, 1, 1);
  EXPECT_EQ(too_many.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(too_many.status().message()), HasSubstr("step_bytes"));
  EXPECT_EQ(SweepSizes(0, 1 << 30, 1, 1).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SweepSizesTest, RejectsEndlessAndInvalidSweeps) {
  auto no_step = SweepSizes(8, 64, 1, 0);
  EXPECT_EQ(no_step.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(no_step.status().message()), HasSubstr("step_bytes"));

  auto zero_min = SweepSizes(0, 64, 2, 0);
  EXPECT_EQ(zero_min.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(zero_min.status().message()), HasSubstr("min_bytes"));

  auto inverted = SweepSizes(64, 8, 2, 0);
  EXPECT_EQ(inverted.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(inverted.status().message()), HasSubstr("max_bytes"));

  EXPECT_THAT(std::string(SweepSizes(-1, 8, 2, 0).status().message()), HasSubstr("min_bytes"));
  EXPECT_THAT(std::string(SweepSizes(1, 8, -2, 0).status().message()), HasSubstr("step_factor"));
  EXPECT_THAT(std::string(SweepSizes(1, 8, 1, -4).status().message()), HasSubstr("step_bytes"));
}

// A list received from another process (LaunchTest.sizes_bytes).
TEST(CheckSweepSizesTest, AcceptsWhatSweepSizesMakes) {
  EXPECT_TRUE(CheckSweepSizes(*SweepSizes(8, 64 * kMiB, 2, 0), 64 * kMiB, "sizes_bytes").ok());
  EXPECT_TRUE(CheckSweepSizes(*SweepSizes(0, 2, 1, 1), 2, "sizes_bytes").ok());
  const std::vector<int64_t> most(kMaxSweepSizes, 7);
  EXPECT_TRUE(CheckSweepSizes(most, 7, "sizes_bytes").ok());
  // Repeats are allowed (non-decreasing), and the last may stay below max.
  EXPECT_TRUE(CheckSweepSizes({0, 4, 4, 9}, 16, "sizes_bytes").ok());
}

TEST(CheckSweepSizesTest, RefusesNamingTheField) {
  auto message = [](const std::vector<int64_t>& sizes, int64_t max_bytes) {
    const absl::Status status = CheckSweepSizes(sizes, max_bytes, "sizes_bytes");
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    return std::string(status.message());
  };
  EXPECT_EQ(message({}, 64), "sizes_bytes: no size to run");
  EXPECT_EQ(message(std::vector<int64_t>(kMaxSweepSizes + 1, 8), 64),
            "sizes_bytes: 10001 sizes; a sweep has at most 10000");
  EXPECT_EQ(message({8, -1, 16}, 64), "sizes_bytes: size #1 (-1) is negative");
  EXPECT_EQ(message({8, 32, 16}, 64),
            "sizes_bytes: size #2 (16) is smaller than the size before it (32)");
  EXPECT_EQ(message({8, 128}, 64), "sizes_bytes: size #1 (128) is larger than max_bytes 64");
}

TEST(WarmupSizesTest, DoublesFromMinToMax) {
  EXPECT_THAT(WarmupSizes(8, 64), ElementsAre(8, 16, 32, 64));
  EXPECT_THAT(WarmupSizes(3, 10), ElementsAre(3, 6));
  EXPECT_THAT(WarmupSizes(0, 4), ElementsAre(0, 1, 2, 4));
  EXPECT_THAT(WarmupSizes(0, 0), ElementsAre(0));
  EXPECT_TRUE(WarmupSizes(5, 4).empty());
}

}  // namespace
}  // namespace eb::transport
