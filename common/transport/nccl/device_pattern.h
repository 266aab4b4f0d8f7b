#pragma once

// pattern.h for the element types that only CUDA has (half, bfloat16, fp8
// e4m3/e5m2), and the element comparison of CountWrong. Usable from .cu
// kernels and from host C++ alike: CUDA 12+ gives __half, __nv_bfloat16 and
// the fp8 types host implementations of the same correctly rounded
// arithmetic, which is what lets host tests check these rules without a GPU.

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "common/transport/pattern.h"

namespace eb::transport::pattern {

// pattern.h covers the host types; these add the device-only ones. Every
// value pattern.h generates is a small integer that each type holds
// exactly, and every reduction of them stays exact (pattern.h's file
// comment), so any arithmetic that rounds correctly gives the same
// expected values. Where results can leave the exact range (prod
// overflowing to inf, or saturating in fp8) we use NCCL's own expressions
// (src/device/reduce_kernel.h), so that our expected value is what NCCL
// computes in any order: inf and saturation are absorbing.

template <>
struct ElementTraits<__half> {
  static constexpr DataType kDataType = DataType::kHalf;
  static constexpr uint64_t kMaxExact = MaxExactInteger(DataType::kHalf);
  EB_HOST_DEVICE static __half FromSmall(uint32_t v) { return __float2half(static_cast<float>(v)); }
  EB_HOST_DEVICE static __half Add(__half a, __half b) { return __hadd(a, b); }
  EB_HOST_DEVICE static __half Mul(__half a, __half b) { return __hmul(a, b); }
  EB_HOST_DEVICE static __half Min(__half a, __half b) { return __hmin(a, b); }
  EB_HOST_DEVICE static __half Max(__half a, __half b) { return __hmax(a, b); }
  EB_HOST_DEVICE static __half DivN(__half a, int n) {
    return __float2half(__half2float(a) / static_cast<float>(n));
  }
  EB_HOST_DEVICE static bool Equal(__half a, __half b) {
    return __half2float(a) == __half2float(b);
  }
};

template <>
struct ElementTraits<__nv_bfloat16> {
  static constexpr DataType kDataType = DataType::kBfloat16;
  static constexpr uint64_t kMaxExact = MaxExactInteger(DataType::kBfloat16);
  EB_HOST_DEVICE static __nv_bfloat16 FromSmall(uint32_t v) {
    return __float2bfloat16(static_cast<float>(v));
  }
  EB_HOST_DEVICE static __nv_bfloat16 Add(__nv_bfloat16 a, __nv_bfloat16 b) { return __hadd(a, b); }
  EB_HOST_DEVICE static __nv_bfloat16 Mul(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmul(a, b); }
  EB_HOST_DEVICE static __nv_bfloat16 Min(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmin(a, b); }
  EB_HOST_DEVICE static __nv_bfloat16 Max(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmax(a, b); }
  EB_HOST_DEVICE static __nv_bfloat16 DivN(__nv_bfloat16 a, int n) {
    return __float2bfloat16(__bfloat162float(a) / static_cast<float>(n));
  }
  EB_HOST_DEVICE static bool Equal(__nv_bfloat16 a, __nv_bfloat16 b) {
    return __bfloat162float(a) == __bfloat162float(b);
  }
};

// fp8 arithmetic goes through half and back with saturation to the largest
// finite value (the conversion constructors use __NV_SATFINITE), exactly as
// NCCL's FuncSum/FuncProd/FuncMinMax do for fp8.
template <typename F8, DataType kType>
struct Fp8Traits {
  static constexpr DataType kDataType = kType;
  static constexpr uint64_t kMaxExact = MaxExactInteger(kType);
  EB_HOST_DEVICE static F8 FromSmall(uint32_t v) { return F8(static_cast<float>(v)); }
  EB_HOST_DEVICE static F8 Add(F8 a, F8 b) { return F8(__hadd(__half(a), __half(b))); }
  EB_HOST_DEVICE static F8 Mul(F8 a, F8 b) { return F8(__hmul(__half(a), __half(b))); }
  EB_HOST_DEVICE static F8 Min(F8 a, F8 b) { return F8(__hmin(__half(a), __half(b))); }
  EB_HOST_DEVICE static F8 Max(F8 a, F8 b) { return F8(__hmax(__half(a), __half(b))); }
  EB_HOST_DEVICE static F8 DivN(F8 a, int n) {
    return F8(static_cast<float>(a) / static_cast<float>(n));
  }
  EB_HOST_DEVICE static bool Equal(F8 a, F8 b) {
    return static_cast<float>(a) == static_cast<float>(b);
  }
};
template <>
struct ElementTraits<__nv_fp8_e4m3> : Fp8Traits<__nv_fp8_e4m3, DataType::kFp8E4M3> {};
template <>
struct ElementTraits<__nv_fp8_e5m2> : Fp8Traits<__nv_fp8_e5m2, DataType::kFp8E5M2> {};

// A key that orders the values of a sign-magnitude floating format (all of
// ours: half, bfloat16, float, double, fp8) like the values themselves, one
// step per representable value, so that the difference of two keys is
// their distance in ulps (+0 and -0 share key 0). NaN keys are meaningless;
// callers rule NaN out first. Pure.
template <typename T>
EB_HOST_DEVICE int64_t OrderedKey(T value) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
  uint64_t bits = 0;
  memcpy(&bits, &value, sizeof(T));  // little-endian: the low bytes
  const uint64_t sign = 1ull << (8 * sizeof(T) - 1);
  const auto magnitude = static_cast<int64_t>(bits & (sign - 1));
  return (bits & sign) != 0 ? -magnitude : magnitude;
}

// CountWrong's comparison: true when `got` equals `expected`, or, for a
// floating type and ulp_tolerance > 0, when it is a number within
// ulp_tolerance ulps of it. NaN never matches; integers compare exactly.
// Pure.
template <typename T>
EB_HOST_DEVICE bool Matches(T got, T expected, uint32_t ulp_tolerance) {
  using Traits = ElementTraits<T>;
  if (Traits::Equal(got, expected)) return true;
  if constexpr (!std::is_integral_v<T>) {
    // NaN (the poison, or a real NaN) never matches.
    if (ulp_tolerance == 0 || !Traits::Equal(got, got)) return false;
    int64_t distance = OrderedKey(got) - OrderedKey(expected);
    if (distance < 0) distance = -distance;
    return distance <= static_cast<int64_t>(ulp_tolerance);
  }
  return false;
}

}  // namespace eb::transport::pattern
