// The verification rules of the NCCL backend's kernels, checked on the host
// (no GPU): device_pattern.h is plain C++ with CUDA's host implementations
// of half, bfloat16 and fp8 arithmetic, which round like the device.
//
// What is proven here:
//   - every input pattern.h generates is exact in each device type;
//   - sum/prod/min/max of those inputs give the same value in any order
//     (rank order, reversed, pairwise tree), including fp8 saturation and
//     half overflow to inf, so NCCL's algorithm choice cannot matter;
//   - NCCL's avg on floating types (pre-multiplied sum, enqueue.cc) lands
//     within VerifyUlpTolerance of our expected value for world sizes 1-16,
//     and exactly on it for powers of two;
//   - Matches never accepts the 0xFF poison.

#include "common/transport/nccl/device_pattern.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/transport/nccl/nccl_types.h"
#include "common/transport/types.h"
#include "gtest/gtest.h"

namespace eb::transport::pattern {
namespace {

constexpr uint64_t kElements = 3000;
constexpr int kWorldSizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 24, 32};

template <typename T>
float AsFloat(T v) {
  return static_cast<float>(v);
}
template <>
float AsFloat<__half>(__half v) {
  return __half2float(v);
}
template <>
float AsFloat<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

PatternSpec Spec(ReduceOp op, int n, uint32_t seed) {
  PatternSpec spec;
  spec.collective = Collective::kAllReduce;
  spec.op = op;
  spec.nranks = n;
  spec.seed = seed;
  spec.count = kElements;
  return spec;
}

// Combine over ranks [lo, hi) as a balanced tree (NCCL's tree algorithms
// and NVLS combine partial results this way, rings in rank order).
template <typename T>
T TreeReduce(const PatternSpec& spec, uint64_t index, int lo, int hi) {
  if (hi - lo == 1) return Input<T>(spec, lo, index);
  const int mid = lo + (hi - lo) / 2;
  return Combine<T>(spec.op, TreeReduce<T>(spec, index, lo, mid),
                    TreeReduce<T>(spec, index, mid, hi));
}

template <typename T>
void ExpectOrderIndependent(const char* name) {
  using Traits = ElementTraits<T>;
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax}) {
    for (int n : kWorldSizes) {
      const PatternSpec spec = Spec(op, n, 7);
      int failures = 0;
      for (uint64_t i = 0; i < kElements && failures < 3; ++i) {
        const T forward = Reduced<T>(spec, i);
        T backward = Input<T>(spec, n - 1, i);
        for (int q = n - 2; q >= 0; --q) backward = Combine<T>(op, backward, Input<T>(spec, q, i));
        const T tree = TreeReduce<T>(spec, i, 0, n);
        if (!Traits::Equal(forward, backward) || !Traits::Equal(forward, tree)) {
          ++failures;
          ADD_FAILURE() << name << " " << Name(op) << " n=" << n << " index " << i
                        << ": rank order " << AsFloat(forward) << ", reversed " << AsFloat(backward)
                        << ", tree " << AsFloat(tree);
        }
      }
    }
  }
}

TEST(DevicePatternTest, ReductionsAreExactInAnyOrder) {
  ExpectOrderIndependent<__half>("half");
  ExpectOrderIndependent<__nv_bfloat16>("bfloat16");
  ExpectOrderIndependent<__nv_fp8_e4m3>("f8e4m3");
  ExpectOrderIndependent<__nv_fp8_e5m2>("f8e5m2");
}

// Products that leave the exact range: half overflows to inf, fp8
// saturates at its largest finite value (NCCL converts with satfinite).
// Both absorb further factors >= 1, so the order of NCCL's combination
// cannot change the result.
template <typename T>
void ExpectSaturationOrderIndependent(const char* name) {
  using Traits = ElementTraits<T>;
  const T one = Traits::FromSmall(1);
  const T two = Traits::FromSmall(2);
  for (int twos = 0; twos <= 40; ++twos) {
    std::vector<T> factors;
    factors.reserve(48);
    for (int i = 0; i < 48; ++i) factors.push_back(i < twos ? two : one);
    T forward = factors[0];
    for (size_t i = 1; i < factors.size(); ++i) forward = Traits::Mul(forward, factors[i]);
    T backward = factors.back();
    for (size_t i = factors.size() - 1; i-- > 0;) backward = Traits::Mul(backward, factors[i]);
    // Pairwise: square the partial products level by level.
    std::vector<T> level = factors;
    while (level.size() > 1) {
      std::vector<T> next;
      for (size_t i = 0; i + 1 < level.size(); i += 2)
        next.push_back(Traits::Mul(level[i], level[i + 1]));
      if (level.size() % 2 == 1) next.push_back(level.back());
      level = next;
    }
    EXPECT_TRUE(Traits::Equal(forward, backward) && Traits::Equal(forward, level[0]))
        << name << " with " << twos << " factors of 2: " << AsFloat(forward) << ", "
        << AsFloat(backward) << ", " << AsFloat(level[0]);
  }
}

TEST(DevicePatternTest, OverflowAndSaturationAreOrderIndependent) {
  ExpectSaturationOrderIndependent<__half>("half");
  ExpectSaturationOrderIndependent<__nv_bfloat16>("bfloat16");
  ExpectSaturationOrderIndependent<__nv_fp8_e4m3>("f8e4m3");
  ExpectSaturationOrderIndependent<__nv_fp8_e5m2>("f8e5m2");
}

template <typename T>
void ExpectInputsExact(const char* name) {
  for (ReduceOp op : kAllReduceOps) {
    for (int n : kWorldSizes) {
      const PatternSpec spec = Spec(op, n, 3);
      for (uint64_t i = 0; i < 200; ++i) {
        const uint32_t small = SmallInput(spec, ElementTraits<T>::kMaxExact, n - 1, i);
        ASSERT_EQ(AsFloat(Input<T>(spec, n - 1, i)), static_cast<float>(small))
            << name << " " << Name(op) << " n=" << n;
      }
    }
  }
}

TEST(DevicePatternTest, InputsAreExact) {
  ExpectInputsExact<__half>("half");
  ExpectInputsExact<__nv_bfloat16>("bfloat16");
  ExpectInputsExact<__nv_fp8_e4m3>("f8e4m3");
  ExpectInputsExact<__nv_fp8_e5m2>("f8e5m2");
}

// NCCL's avg on a floating type T (enqueue.cc hostToDevRedOp and
// reduce_kernel.h): scale = T(float(1.0 / n)) (double: 1.0 / n), every
// input multiplied by it in T, then summed in T in an order of NCCL's
// choosing.
template <typename T>
void ExpectNcclAvgWithinTolerance(const char* name, DataType type) {
  using Traits = ElementTraits<T>;
  for (int n : kWorldSizes) {
    const PatternSpec spec = Spec(ReduceOp::kAvg, n, 11);
    const T scale = std::is_same_v<T, double> ? T(1.0 / n) : T(static_cast<float>(1.0 / n));
    const uint32_t tolerance = VerifyUlpTolerance(Collective::kAllReduce, type, ReduceOp::kAvg, n);
    const bool power_of_two = (n & (n - 1)) == 0;
    EXPECT_EQ(tolerance == 0, power_of_two) << name << " n=" << n;
    for (uint64_t i = 0; i < kElements; ++i) {
      const T expected = Expected<T>(spec, 0, i);
      T forward = Traits::Mul(Input<T>(spec, 0, i), scale);
      for (int q = 1; q < n; ++q)
        forward = Traits::Add(forward, Traits::Mul(Input<T>(spec, q, i), scale));
      T backward = Traits::Mul(Input<T>(spec, n - 1, i), scale);
      for (int q = n - 2; q >= 0; --q) {
        backward = Traits::Add(backward, Traits::Mul(Input<T>(spec, q, i), scale));
      }
      for (const T got : {forward, backward}) {
        ASSERT_TRUE(Matches<T>(got, expected, tolerance))
            << name << " n=" << n << " index " << i << ": NCCL-style avg " << AsFloat(got)
            << ", expected " << AsFloat(expected) << ", tolerance " << tolerance << " ulps";
        if (power_of_two) {
          ASSERT_TRUE(Traits::Equal(got, expected)) << name << " n=" << n;
        }
      }
    }
  }
}

TEST(DevicePatternTest, NcclAvgIsWithinTheTolerance) {
  ExpectNcclAvgWithinTolerance<__half>("half", DataType::kHalf);
  ExpectNcclAvgWithinTolerance<__nv_bfloat16>("bfloat16", DataType::kBfloat16);
  ExpectNcclAvgWithinTolerance<float>("float", DataType::kFloat);
  ExpectNcclAvgWithinTolerance<double>("double", DataType::kDouble);
  ExpectNcclAvgWithinTolerance<__nv_fp8_e4m3>("f8e4m3", DataType::kFp8E4M3);
  ExpectNcclAvgWithinTolerance<__nv_fp8_e5m2>("f8e5m2", DataType::kFp8E5M2);
}

template <typename T>
T Poison() {
  // What FillInput's cudaMemsetAsync(0xFF) leaves (the cast to void*
  // says the byte write into a CUDA class type is intended).
  T value{};
  std::memset(static_cast<void*>(&value), 0xFF, sizeof(value));
  return value;
}

TEST(DevicePatternTest, PoisonNeverMatches) {
  EXPECT_FALSE(Matches<__half>(Poison<__half>(), __half(1.0f), 1000));
  EXPECT_FALSE(Matches<__nv_bfloat16>(Poison<__nv_bfloat16>(), __nv_bfloat16(1.0f), 1000));
  EXPECT_FALSE(Matches<float>(Poison<float>(), 1.0f, 1000));
  EXPECT_FALSE(Matches<double>(Poison<double>(), 1.0, 1000));
  EXPECT_FALSE(Matches<__nv_fp8_e4m3>(Poison<__nv_fp8_e4m3>(), __nv_fp8_e4m3(1.0f), 1000));
  EXPECT_FALSE(Matches<__nv_fp8_e5m2>(Poison<__nv_fp8_e5m2>(), __nv_fp8_e5m2(1.0f), 1000));
  EXPECT_FALSE(Matches<uint8_t>(Poison<uint8_t>(), 7, 1000));
  EXPECT_FALSE(Matches<int32_t>(Poison<int32_t>(), 7, 1000));
}

TEST(DevicePatternTest, ToleranceCountsUlps) {
  const float one = 1.0f;
  const float next = std::nextafter(one, 2.0f);
  const float next2 = std::nextafter(next, 2.0f);
  EXPECT_EQ(OrderedKey(next) - OrderedKey(one), 1);
  EXPECT_EQ(OrderedKey(-0.0f), OrderedKey(0.0f));
  EXPECT_LT(OrderedKey(-1.0f), OrderedKey(0.0f));
  EXPECT_FALSE(Matches<float>(next, one, 0));
  EXPECT_TRUE(Matches<float>(next, one, 1));
  EXPECT_FALSE(Matches<float>(next2, one, 1));
  EXPECT_TRUE(Matches<float>(next2, one, 2));
  EXPECT_FALSE(Matches<float>(-1.0f, 1.0f, 1000));
  EXPECT_FALSE(Matches<int32_t>(8, 7, 1000));  // integers are always exact
  // One fp8 e4m3 step above 1.0 is 1.125.
  EXPECT_TRUE(Matches<__nv_fp8_e4m3>(__nv_fp8_e4m3(1.125f), __nv_fp8_e4m3(1.0f), 1));
  EXPECT_FALSE(Matches<__nv_fp8_e4m3>(__nv_fp8_e4m3(1.25f), __nv_fp8_e4m3(1.0f), 1));
}

}  // namespace
}  // namespace eb::transport::pattern
