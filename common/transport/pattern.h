#pragma once

// Exactly predictable data for correctness checks (STYLE.md rule 20; the
// idea of nccl-tests' "verifiable" buffers, NCCL_FACTS.md section 2.2), in
// our own design: every input element is a small integer chosen so that each
// reduction is exact in every data type and in any order, so the expected
// output can be computed independently on every rank and compared with ==.
//
//   sum, avg   inputs in [0, R), R = clamp(MaxExactInteger(type)/nranks + 1,
//              1, 8): the full sum (R-1)*nranks never exceeds the largest
//              integer the type holds exactly, so every partial sum is
//              exact. Integer types wrap around, which is exact too (and we
//              reproduce the wrap by computing in the element type).
//   prod       inputs 1, or 2 where Mix % 8 == 0: products of powers of two
//              are exact (or overflow to inf identically in any order);
//              integer products wrap identically.
//   min, max   inputs in [0, min(100, MaxExactInteger + 1)).
//   non-reducing collectives: inputs in [0, min(64, MaxExactInteger + 1)).
//
// Header-only and usable from host C++ and from CUDA kernels (every
// function is EB_HOST_DEVICE, no std:: containers, no exceptions, integer
// hashing only). Host element types: int8..uint64, float, double. The CUDA
// side adds ElementTraits specialisations for half, bfloat16 and fp8.
//
// avg caveat: for integer types the expected value is the wrapped sum
// divided by nranks with truncation (as NCCL's SumPostDiv). For floating
// types it is sum / nranks, which equals NCCL's pre-multiplied sum
// (x * (1/n) per input) exactly only when nranks is a power of two; a
// backend supporting avg on floats must account for that. Gloo rejects avg.

#include <stdint.h>

#include "common/transport/types.h"

namespace eb::transport::pattern {

// Everything that determines the data of one fill/verify round; identical
// on all ranks.
struct PatternSpec {
  Collective collective = Collective::kAllReduce;
  ReduceOp op = ReduceOp::kSum;
  int nranks = 1;
  int root = 0;
  uint32_t seed = 0;
  // Elements per rank as passed to the collective (CollectiveCall::count).
  uint64_t count = 0;
};

// The largest integer M such that every integer in [0, M] is exactly
// representable in `type` (kUnlimitedExactInteger for integer types; the
// data type's row).
EB_HOST_DEVICE constexpr uint64_t MaxExactInteger(DataType type) {
  return Row(type).max_exact_integer;
}

// A cheap integer hash of (seed, rank, index): a golden-ratio offset per
// (seed, rank) followed by the splitmix64 finaliser. Different seeds give
// unrelated data, so a stale buffer from an earlier round never passes.
EB_HOST_DEVICE inline uint32_t Mix(uint32_t seed, uint32_t rank, uint64_t index) {
  const uint64_t key = ((static_cast<uint64_t>(seed) << 32) | rank) + 1;
  uint64_t x = index + key * 0x9E3779B97F4A7C15ull;
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return static_cast<uint32_t>(x >> 32);
}

// The exclusive upper bound R of sum/avg inputs (see the file comment).
EB_HOST_DEVICE constexpr uint32_t SumInputRange(uint64_t max_exact, int nranks) {
  const uint64_t n = nranks < 1 ? 1 : static_cast<uint64_t>(nranks);
  const uint64_t r = max_exact / n + 1;  // never overflows: max_exact/n < 2^64-1
  return r > 8 ? 8u : (r < 1 ? 1u : static_cast<uint32_t>(r));
}

// min(limit, max_exact + 1) without overflowing at kUnlimitedExactInteger.
EB_HOST_DEVICE constexpr uint32_t BoundedRange(uint64_t max_exact, uint32_t limit) {
  return max_exact >= limit - 1 ? limit : static_cast<uint32_t>(max_exact + 1);
}

// The small non-negative integer that rank `rank` holds at send index
// `index`, before conversion to the element type.
EB_HOST_DEVICE inline uint32_t SmallInput(const PatternSpec& spec, uint64_t max_exact, int rank,
                                          uint64_t index) {
  const uint32_t h = Mix(spec.seed, static_cast<uint32_t>(rank), index);
  if (!IsReducing(spec.collective)) return h % BoundedRange(max_exact, 64);
  switch (spec.op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return h % SumInputRange(max_exact, spec.nranks);
    case ReduceOp::kProd:
      return h % 8 == 0 ? 2u : 1u;
    case ReduceOp::kMin:
    case ReduceOp::kMax:
      return h % BoundedRange(max_exact, 100);
  }
  return 0;
}

// Arithmetic of integer element types, done in the unsigned type of the
// same width so that wrap-around is defined (no signed-overflow UB) and
// matches what the hardware does.
template <typename T, typename U, DataType kType>
struct IntegerTraits {
  static constexpr DataType kDataType = kType;
  static constexpr uint64_t kMaxExact = kUnlimitedExactInteger;
  EB_HOST_DEVICE static T FromSmall(uint32_t v) { return static_cast<T>(v); }
  EB_HOST_DEVICE static T Add(T a, T b) {
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  }
  EB_HOST_DEVICE static T Mul(T a, T b) {
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  }
  EB_HOST_DEVICE static T Min(T a, T b) { return b < a ? b : a; }
  EB_HOST_DEVICE static T Max(T a, T b) { return a < b ? b : a; }
  // Truncating division, computed wide so that nranks need not fit in T.
  EB_HOST_DEVICE static T DivN(T a, int n) {
    if constexpr (static_cast<T>(-1) < static_cast<T>(0)) {
      return static_cast<T>(static_cast<int64_t>(a) / static_cast<int64_t>(n));
    }
    return static_cast<T>(static_cast<uint64_t>(a) / static_cast<uint64_t>(n));
  }
  EB_HOST_DEVICE static bool Equal(T a, T b) { return a == b; }
};

// Arithmetic of floating element types: native, since the inputs keep every
// intermediate result exact.
template <typename T, DataType kType>
struct FloatTraits {
  static constexpr DataType kDataType = kType;
  static constexpr uint64_t kMaxExact = MaxExactInteger(kType);
  EB_HOST_DEVICE static T FromSmall(uint32_t v) { return static_cast<T>(v); }
  EB_HOST_DEVICE static T Add(T a, T b) { return a + b; }
  EB_HOST_DEVICE static T Mul(T a, T b) { return a * b; }
  EB_HOST_DEVICE static T Min(T a, T b) { return b < a ? b : a; }
  EB_HOST_DEVICE static T Max(T a, T b) { return a < b ? b : a; }
  EB_HOST_DEVICE static T DivN(T a, int n) { return a / static_cast<T>(n); }
  // Bitwise-exact comparison is what we want, but == is equivalent here: the
  // expected values are never NaN and -0 cannot arise from these inputs.
  EB_HOST_DEVICE static bool Equal(T a, T b) { return a == b; }
};

// Per element type: kDataType, kMaxExact, FromSmall, Add, Mul, Min, Max,
// DivN, Equal. Specialise for device types (half, bfloat16, fp8) in .cu code.
template <typename T>
struct ElementTraits;
template <>
struct ElementTraits<int8_t> : IntegerTraits<int8_t, uint8_t, DataType::kInt8> {};
template <>
struct ElementTraits<uint8_t> : IntegerTraits<uint8_t, uint8_t, DataType::kUint8> {};
template <>
struct ElementTraits<int32_t> : IntegerTraits<int32_t, uint32_t, DataType::kInt32> {};
template <>
struct ElementTraits<uint32_t> : IntegerTraits<uint32_t, uint32_t, DataType::kUint32> {};
template <>
struct ElementTraits<int64_t> : IntegerTraits<int64_t, uint64_t, DataType::kInt64> {};
template <>
struct ElementTraits<uint64_t> : IntegerTraits<uint64_t, uint64_t, DataType::kUint64> {};
template <>
struct ElementTraits<float> : FloatTraits<float, DataType::kFloat> {};
template <>
struct ElementTraits<double> : FloatTraits<double, DataType::kDouble> {};

// Combines two values with `op` in T (avg combines like sum; the division
// happens once at the end, see Reduced).
template <typename T>
EB_HOST_DEVICE T Combine(ReduceOp op, T a, T b) {
  using Tr = ElementTraits<T>;
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return Tr::Add(a, b);
    case ReduceOp::kProd:
      return Tr::Mul(a, b);
    case ReduceOp::kMin:
      return Tr::Min(a, b);
    case ReduceOp::kMax:
      return Tr::Max(a, b);
  }
  return a;
}

// Input element `index` of rank `rank`'s send region (index < SendElements).
template <typename T>
EB_HOST_DEVICE T Input(const PatternSpec& spec, int rank, uint64_t index) {
  return ElementTraits<T>::FromSmall(SmallInput(spec, ElementTraits<T>::kMaxExact, rank, index));
}

// The reduction over all ranks q (in rank order) of Input(q, index), and
// for avg the division by nranks.
template <typename T>
EB_HOST_DEVICE T Reduced(const PatternSpec& spec, uint64_t index) {
  T acc = Input<T>(spec, 0, index);
  for (int q = 1; q < spec.nranks; ++q) acc = Combine<T>(spec.op, acc, Input<T>(spec, q, index));
  if (spec.op == ReduceOp::kAvg) acc = ElementTraits<T>::DivN(acc, spec.nranks);
  return acc;
}

// Elements a rank's send region holds (what the collective reads).
EB_HOST_DEVICE constexpr uint64_t SendElements(const PatternSpec& spec) {
  return SendElementsOf(spec.collective, spec.count, spec.nranks);
}

// Elements of `rank`'s receive region that the collective defines (0 for
// reduce on a non-root: NCCL leaves that buffer alone).
EB_HOST_DEVICE constexpr uint64_t RecvElements(const PatternSpec& spec, int rank) {
  if (Row(spec.collective).only_root_receives && rank != spec.root) return 0;
  return RecvElementsOf(spec.collective, spec.count, spec.nranks);
}

// The expected element `index` (< RecvElements) of `rank`'s receive region.
template <typename T>
EB_HOST_DEVICE T Expected(const PatternSpec& spec, int rank, uint64_t index) {
  const uint64_t count = spec.count;
  switch (spec.collective) {
    case Collective::kAllReduce:
    case Collective::kReduce:
      return Reduced<T>(spec, index);
    case Collective::kReduceScatter:
      return Reduced<T>(spec, static_cast<uint64_t>(rank) * count + index);
    case Collective::kBroadcast:
      return Input<T>(spec, spec.root, index);
    case Collective::kAllGather:
      return Input<T>(spec, static_cast<int>(index / count), index % count);
    case Collective::kAllToAll:
      return Input<T>(spec, static_cast<int>(index / count),
                      static_cast<uint64_t>(rank) * count + index % count);
    case Collective::kSendRecv:
      return Input<T>(spec, (rank - 1 + spec.nranks) % spec.nranks, index);
  }
  return T();
}

}  // namespace eb::transport::pattern
