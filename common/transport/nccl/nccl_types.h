#pragma once

// Pure mappings between the data plane's vocabulary (types.h) and NCCL's,
// and the per-GPU and per-call rules of the NCCL backend. No CUDA calls:
// everything here is thread-safe and testable without a GPU.

#include <nccl.h>

#include <cstdint>

#include "absl/status/status.h"
#include "common/transport/communicator.h"
#include "common/transport/types.h"

namespace eb::transport {

// NCCL's version code for (major, minor, patch), as NCCL_VERSION in nccl.h
// (major*10000 + minor*100 + patch for 2.9 and later).
constexpr int NcclVersionCode(int major, int minor, int patch) {
  return major * 10000 + minor * 100 + patch;
}

// ncclAlltoAll exists from 2.28.0; older libraries get grouped send/recv.
inline constexpr int kNcclAlltoAllVersion = NcclVersionCode(2, 28, 0);

// Our kernels are built for sm_80 and sm_90 (CMAKE_CUDA_ARCHITECTURES);
// older GPUs cannot run them.
inline constexpr int kMinComputeCapability = 80;

// DataType -> ncclDataType_t (half = ncclFloat16, float = ncclFloat32,
// fp8 = ncclFloat8e4m3 / ncclFloat8e5m2, ...).
ncclDataType_t ToNcclDataType(DataType type);

// ReduceOp -> ncclRedOp_t (avg = ncclAvg).
ncclRedOp_t ToNcclRedOp(ReduceOp op);

// True for half, float, double, bfloat16 and both fp8 types.
bool IsFloatingType(DataType type);

// OK when a GPU of compute capability `compute_capability` (10*major+minor,
// e.g. 90 for H200) can run `collective` on `type` through NCCL and our
// kernels. UNIMPLEMENTED otherwise:
//   fp8 below sm_89: "data_type: f8e4m3 needs sm_89 or newer (this GPU is
//     sm_80)" (no fp8 hardware; nccl-tests offers fp8 only from sm_90);
//   fp8 reductions below sm_90: NCCL refuses them ("FP8 reduction support
//     begins with sm90", enqueue.cc), so we say so before NCCL does.
absl::Status CheckDeviceSupports(DataType type, Collective collective, int compute_capability);

// The tolerance, in units in the last place of the element type, that
// CountWrong allows between a received element and the expected value.
// 0 (exact) everywhere except avg of a floating type on a world size that
// is not a power of two, where it is world_size + 1.
//
// Why: NCCL computes avg on floats as a pre-multiplied sum, sum over ranks
// of RN(x * RN(1/n)) (enqueue.cc hostToDevRedOp: ncclDevPreMulSum), summed
// in an order that depends on the algorithm; pattern.h expects RN(sum / n).
// For n a power of two, 1/n and every x/n are exact and every partial sum
// is a multiple of 1/n below MaxExactInteger/n, so both are exact and equal.
// Otherwise each of the n products and n-1 additions rounds once and 1/n
// itself once: a relative error below (n+1)u, u = 2^-precision, which is
// below n+1 ulps of the result. An exhaustive simulation of the inputs
// pattern.h generates (n <= 16, two summation orders) gave at most 4 ulps
// (half, float, bfloat16) and 2 (fp8); 1 ulp is too tight from n = 5 on.
// Integer avg (NCCL's SumPostDiv: wrapped sum, then truncating division)
// is exact.
uint32_t VerifyUlpTolerance(Collective collective, DataType type, ReduceOp op, int world_size);

// True when NCCL defines no result for `call` on a communicator of
// `world_size` ranks, so CountWrong must not judge it: alltoall and
// sendrecv (point-to-point underneath) whose send and receive regions
// overlap, as in nccl-tests' in-place placement, with more than one rank.
// A peer's data may land in a chunk before this rank has sent it, so the
// output depends on timing. nccl-tests reports no #wrong for them either
// (alltoall.cu and sendrecv.cu: reportErrors = in_place ? 0 : 1). With one
// rank NCCL copies each chunk onto itself, which is exact.
bool IsUncheckableInPlace(const CollectiveCall& call, int world_size);

// NCCL before 2.29.7 has a data-corruption bug (NVIDIA/nccl#1950): on a
// communicator of one rank, a reduction NCCL runs as a pre-multiplied sum
// (avg on a floating type) goes through its oneRankReduce kernel, which
// splits the `count` elements over bn = min(32, ceil(bytes / 16 KiB))
// blocks of alignUp(count / bn, 16 / element size) elements each, rounding
// count / bn down, so the last elements are never written. Out of place
// they keep whatever the receive buffer held (our poison); in place they
// keep the input, which x * 1 leaves right. Seen on the H200 with NCCL
// 2.28.3: reduce_scatter, double, avg, 8194 elements, 4 wrong.
inline constexpr int kNcclOneRankAvgFixedVersion = NcclVersionCode(2, 29, 7);

// How many receive elements that bug leaves unwritten for `call` on a
// communicator of `world_size` ranks with NCCL `nccl_version` (a version
// code); 0 when the library is fixed or the call is not affected. A wrong
// count equal to it is still a failure (the data is wrong) but can be named
// for what it is.
int64_t NcclOneRankAvgUnwritten(const CollectiveCall& call, int world_size, int nccl_version);

}  // namespace eb::transport
