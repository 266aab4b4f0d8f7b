#include "common/transport/pattern.h"

#include <cstdint>
#include <vector>

#include "common/transport/types.h"
#include "gtest/gtest.h"

namespace eb::transport::pattern {
namespace {

constexpr int kRankCounts[] = {1, 2, 3, 8, 64};
constexpr ReduceOp kOps[] = {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax,
                             ReduceOp::kAvg};
constexpr uint64_t kIndices = 96;

PatternSpec Spec(Collective c, ReduceOp op, int n, uint32_t seed, uint64_t count = 16) {
  PatternSpec spec;
  spec.collective = c;
  spec.op = op;
  spec.nranks = n;
  spec.root = n - 1;
  spec.seed = seed;
  spec.count = count;
  return spec;
}

// A second reduction order: pairwise tree over the ranks, from the last
// rank down, the way a tree algorithm might combine.
template <typename T>
T TreeReduce(const PatternSpec& spec, uint64_t index, int lo, int hi) {
  if (hi - lo == 1) return Input<T>(spec, lo, index);
  const int mid = lo + (hi - lo) / 2;
  return Combine<T>(spec.op, TreeReduce<T>(spec, index, mid, hi),
                    TreeReduce<T>(spec, index, lo, mid));
}

template <typename T>
void CheckOrderIndependence() {
  for (int n : kRankCounts) {
    for (ReduceOp op : kOps) {
      for (uint32_t seed : {1u, 99u, 12345u}) {
        const PatternSpec spec = Spec(Collective::kAllReduce, op, n, seed);
        for (uint64_t i = 0; i < kIndices; ++i) {
          T tree = TreeReduce<T>(spec, i, 0, n);
          if (op == ReduceOp::kAvg) tree = ElementTraits<T>::DivN(tree, n);
          ASSERT_EQ(Reduced<T>(spec, i), tree)
              << "type " << Name(ElementTraits<T>::kDataType) << " op " << Name(op) << " n " << n
              << " index " << i;
        }
      }
    }
  }
}

TEST(PatternTest, ReductionsAreOrderIndependentInEveryHostType) {
  CheckOrderIndependence<int8_t>();
  CheckOrderIndependence<uint8_t>();
  CheckOrderIndependence<int32_t>();
  CheckOrderIndependence<uint32_t>();
  CheckOrderIndependence<int64_t>();
  CheckOrderIndependence<uint64_t>();
  CheckOrderIndependence<float>();
  CheckOrderIndependence<double>();
}

// Sums compared with exact 64-bit integer arithmetic: floats must match
// exactly, integers must match modulo 2^bits (the wrap-around).
template <typename T>
void CheckSumsAgainstExactArithmetic() {
  for (int n : kRankCounts) {
    const PatternSpec spec = Spec(Collective::kAllReduce, ReduceOp::kSum, n, 7);
    for (uint64_t i = 0; i < kIndices; ++i) {
      uint64_t exact = 0;
      for (int q = 0; q < n; ++q) exact += SmallInput(spec, ElementTraits<T>::kMaxExact, q, i);
      ASSERT_EQ(Reduced<T>(spec, i), static_cast<T>(exact))
          << Name(ElementTraits<T>::kDataType) << " n " << n << " index " << i;
    }
  }
}

TEST(PatternTest, SumsAreExact) {
  CheckSumsAgainstExactArithmetic<int8_t>();
  CheckSumsAgainstExactArithmetic<uint8_t>();
  CheckSumsAgainstExactArithmetic<int32_t>();
  CheckSumsAgainstExactArithmetic<uint64_t>();
  CheckSumsAgainstExactArithmetic<float>();
  CheckSumsAgainstExactArithmetic<double>();
}

TEST(PatternTest, ProductsAreExactPowersOfTwo) {
  const PatternSpec spec = Spec(Collective::kAllReduce, ReduceOp::kProd, 64, 3);
  int twos_seen = 0;
  for (uint64_t i = 0; i < kIndices; ++i) {
    int twos = 0;
    for (int q = 0; q < 64; ++q) {
      const uint32_t v = SmallInput(spec, ElementTraits<float>::kMaxExact, q, i);
      ASSERT_TRUE(v == 1 || v == 2);
      twos += v == 2;
    }
    twos_seen += twos;
    EXPECT_EQ(Reduced<double>(spec, i), static_cast<double>(uint64_t{1} << twos));
    // int8 wraps: 2^k mod 256 (0 once k >= 8).
    EXPECT_EQ(Reduced<int8_t>(spec, i), static_cast<int8_t>(twos >= 8 ? 0 : (1 << twos)));
  }
  EXPECT_GT(twos_seen, 0);
}

TEST(PatternTest, InputRangesKeepEverySumExact) {
  // Every type's exact-integer limit, including the device-only ones.
  for (DataType t : kAllDataTypes) {
    const uint64_t max_exact = MaxExactInteger(t);
    for (int n = 1; n <= 4096; n = n < 16 ? n + 1 : n * 2) {
      const uint64_t r = SumInputRange(max_exact, n);
      ASSERT_GE(r, 1u);
      ASSERT_LE(r, 8u);
      if (max_exact != kUnlimitedExactInteger) {
        ASSERT_LE((r - 1) * static_cast<uint64_t>(n), max_exact) << Name(t) << " n " << n;
      }
    }
  }
  EXPECT_EQ(SumInputRange(MaxExactInteger(DataType::kBfloat16), 64), 5u);
  EXPECT_EQ(SumInputRange(MaxExactInteger(DataType::kFp8E4M3), 3), 6u);
  EXPECT_EQ(SumInputRange(MaxExactInteger(DataType::kFp8E5M2), 64), 1u);
  EXPECT_EQ(SumInputRange(MaxExactInteger(DataType::kFloat), 64), 8u);
  EXPECT_EQ(BoundedRange(MaxExactInteger(DataType::kFp8E5M2), 64), 9u);
  EXPECT_EQ(BoundedRange(MaxExactInteger(DataType::kInt8), 100), 100u);
}

TEST(PatternTest, InputsStayInTheirRanges) {
  for (uint64_t i = 0; i < 1000; ++i) {
    EXPECT_LT(SmallInput(Spec(Collective::kAllReduce, ReduceOp::kSum, 2, 1), ~0ull, 1, i), 8u);
    EXPECT_LT(SmallInput(Spec(Collective::kAllReduce, ReduceOp::kMax, 2, 1), ~0ull, 1, i), 100u);
    EXPECT_LT(SmallInput(Spec(Collective::kAllGather, ReduceOp::kSum, 2, 1), ~0ull, 1, i), 64u);
    EXPECT_LE(SmallInput(Spec(Collective::kAllGather, ReduceOp::kSum, 2, 1), 8, 1, i), 8u);
  }
}

TEST(PatternTest, SeedsAndRanksGiveDifferentData) {
  int same_seed_diff = 0;
  int same_rank_diff = 0;
  for (uint64_t i = 0; i < 1000; ++i) {
    same_seed_diff += Mix(1, 0, i) == Mix(2, 0, i);
    same_rank_diff += Mix(1, 0, i) == Mix(1, 1, i);
  }
  EXPECT_EQ(same_seed_diff, 0);
  EXPECT_EQ(same_rank_diff, 0);
  // Small values still differ often enough to catch stale buffers.
  const PatternSpec a = Spec(Collective::kAllGather, ReduceOp::kSum, 4, 1);
  const PatternSpec b = Spec(Collective::kAllGather, ReduceOp::kSum, 4, 2);
  int equal = 0;
  for (uint64_t i = 0; i < 1000; ++i) equal += Input<float>(a, 0, i) == Input<float>(b, 0, i);
  EXPECT_LT(equal, 50);
}

TEST(PatternTest, ExpectedFollowsEachCollectiveDefinition) {
  const int n = 3;
  const uint64_t count = 5;
  for (Collective c : kAllCollectives) {
    const PatternSpec spec = Spec(c, ReduceOp::kSum, n, 11, count);
    for (int r = 0; r < n; ++r) {
      for (uint64_t i = 0; i < RecvElements(spec, r); ++i) {
        int32_t want = 0;
        switch (c) {
          case Collective::kAllReduce:
          case Collective::kReduce:
            for (int q = 0; q < n; ++q) want += Input<int32_t>(spec, q, i);
            break;
          case Collective::kReduceScatter:
            for (int q = 0; q < n; ++q) want += Input<int32_t>(spec, q, r * count + i);
            break;
          case Collective::kBroadcast:
            want = Input<int32_t>(spec, spec.root, i);
            break;
          case Collective::kAllGather:
            want = Input<int32_t>(spec, static_cast<int>(i / count), i % count);
            break;
          case Collective::kAllToAll:
            want = Input<int32_t>(spec, static_cast<int>(i / count), r * count + i % count);
            break;
          case Collective::kSendRecv:
            want = Input<int32_t>(spec, (r + n - 1) % n, i);
            break;
        }
        ASSERT_EQ(Expected<int32_t>(spec, r, i), want) << Name(c) << " rank " << r << " i " << i;
      }
    }
  }
}

TEST(PatternTest, RegionSizes) {
  PatternSpec spec = Spec(Collective::kReduceScatter, ReduceOp::kSum, 4, 1, 10);
  EXPECT_EQ(SendElements(spec), 40u);
  EXPECT_EQ(RecvElements(spec, 0), 10u);
  spec.collective = Collective::kAllGather;
  EXPECT_EQ(SendElements(spec), 10u);
  EXPECT_EQ(RecvElements(spec, 0), 40u);
  spec.collective = Collective::kAllToAll;
  EXPECT_EQ(SendElements(spec), 40u);
  EXPECT_EQ(RecvElements(spec, 2), 40u);
  spec.collective = Collective::kReduce;  // root is nranks - 1 = 3
  EXPECT_EQ(RecvElements(spec, 3), 10u);
  EXPECT_EQ(RecvElements(spec, 0), 0u);
}

TEST(PatternTest, AvgDividesTheWrappedSumWithTruncation) {
  const PatternSpec spec = Spec(Collective::kAllReduce, ReduceOp::kAvg, 3, 5);
  for (uint64_t i = 0; i < kIndices; ++i) {
    int64_t sum = 0;
    for (int q = 0; q < 3; ++q) sum += Input<int64_t>(spec, q, i);
    EXPECT_EQ(Reduced<int64_t>(spec, i), sum / 3);
    EXPECT_EQ(Reduced<double>(spec, i), static_cast<double>(sum) / 3.0);
  }
}

}  // namespace
}  // namespace eb::transport::pattern
