// Fill and verify kernels of the NCCL backend (see fill_verify.h). One
// FillKernel and one CountWrongKernel per element type: 12 types x 2
// kernels, which keeps nvcc's compile time modest.

#include <stdint.h>

#include "common/transport/nccl/device_pattern.h"
#include "common/transport/nccl/fill_verify.h"

namespace eb::transport {
namespace {

constexpr unsigned int kThreads = 256;  // a multiple of the warp size
constexpr uint64_t kMaxBlocks = 4096;   // grid-stride loops cover the rest

unsigned int Blocks(uint64_t elements) {
  uint64_t blocks = (elements + kThreads - 1) / kThreads;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  return static_cast<unsigned int>(blocks < 1 ? 1 : blocks);
}

template <typename T>
__global__ void FillKernel(pattern::PatternSpec spec, int rank, T* send, uint64_t n) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    send[i] = pattern::Input<T>(spec, rank, i);
  }
}

template <typename T>
__global__ void CountWrongKernel(pattern::PatternSpec spec, int rank, const T* recv, uint64_t n,
                                 uint32_t ulp_tolerance, unsigned long long* counter) {
  unsigned int wrong = 0;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    if (!pattern::Matches<T>(recv[i], pattern::Expected<T>(spec, rank, i), ulp_tolerance)) ++wrong;
  }
  // Every warp is full (kThreads is a multiple of 32) and has left the
  // loop, so the full mask is valid. One atomic per warp with errors.
  wrong = __reduce_add_sync(0xffffffffu, wrong);
  if ((threadIdx.x & 31u) == 0 && wrong != 0) {
    atomicAdd(counter, static_cast<unsigned long long>(wrong));
  }
}

template <typename T>
struct Tag {
  using Type = T;
};

// Calls fn(Tag<T>{}) for the device element type T of `type`.
template <typename Fn>
cudaError_t DispatchDeviceType(DataType type, Fn&& fn) {
  switch (type) {
    case DataType::kInt8:
      return fn(Tag<int8_t>{});
    case DataType::kUint8:
      return fn(Tag<uint8_t>{});
    case DataType::kInt32:
      return fn(Tag<int32_t>{});
    case DataType::kUint32:
      return fn(Tag<uint32_t>{});
    case DataType::kInt64:
      return fn(Tag<int64_t>{});
    case DataType::kUint64:
      return fn(Tag<uint64_t>{});
    case DataType::kHalf:
      return fn(Tag<__half>{});
    case DataType::kFloat:
      return fn(Tag<float>{});
    case DataType::kDouble:
      return fn(Tag<double>{});
    case DataType::kBfloat16:
      return fn(Tag<__nv_bfloat16>{});
    case DataType::kFp8E4M3:
      return fn(Tag<__nv_fp8_e4m3>{});
    case DataType::kFp8E5M2:
      return fn(Tag<__nv_fp8_e5m2>{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t LaunchDeviceFill(const pattern::PatternSpec& spec, DataType type, int rank, void* send,
                             cudaStream_t stream) {
  const uint64_t n = pattern::SendElements(spec);
  if (n == 0) return cudaSuccess;
  return DispatchDeviceType(type, [&](auto tag) {
    using T = typename decltype(tag)::Type;
    // cudaGetLastError after <<<>>> is how a launch reports; clear first
    // so that a stale, already reported error is not blamed on it.
    (void)cudaGetLastError();
    FillKernel<T><<<Blocks(n), kThreads, 0, stream>>>(spec, rank, static_cast<T*>(send), n);
    return cudaGetLastError();
  });
}

cudaError_t LaunchDeviceCountWrong(const pattern::PatternSpec& spec, DataType type, int rank,
                                   const void* recv, uint32_t ulp_tolerance,
                                   unsigned long long* counter, cudaStream_t stream) {
  const uint64_t n = pattern::RecvElements(spec, rank);
  if (n == 0) return cudaSuccess;
  return DispatchDeviceType(type, [&](auto tag) {
    using T = typename decltype(tag)::Type;
    (void)cudaGetLastError();  // as in LaunchDeviceFill
    CountWrongKernel<T><<<Blocks(n), kThreads, 0, stream>>>(spec, rank, static_cast<const T*>(recv),
                                                            n, ulp_tolerance, counter);
    return cudaGetLastError();
  });
}

}  // namespace eb::transport
