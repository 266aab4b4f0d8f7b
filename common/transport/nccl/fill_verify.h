#pragma once

// The device side of NcclCommunicator::FillInput / CountWrong: CUDA kernels
// (fill_verify.cu) computing pattern.h's data on the GPU, so that no buffer
// crosses PCIe for a check. Same semantics as cpu_pattern.cc, for every
// DataType including half, bfloat16 and fp8.
//
// Plain CUDA runtime interface (no Abseil) so that nvcc compiles the .cu
// file without Abseil's headers; the caller turns cudaError_t into a status.
// Every function only enqueues work on `stream` and returns the launch
// error; it never synchronizes. Callers make sure the device is current.

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "common/transport/pattern.h"
#include "common/transport/types.h"

namespace eb::transport {

// Writes rank `rank`'s input, pattern::Input<T>(spec, rank, i) for every i
// < pattern::SendElements(spec), to `send` (device memory of `type`
// elements). The caller poisons the receive region first (cudaMemsetAsync
// 0xFF), as cpu_pattern.cc does.
cudaError_t LaunchDeviceFill(const pattern::PatternSpec& spec, DataType type, int rank, void* send,
                             cudaStream_t stream);

// Adds to *counter (device memory, zeroed by the caller) the number of
// elements i < pattern::RecvElements(spec, rank) of `recv` that differ from
// pattern::Expected<T>(spec, rank, i). With ulp_tolerance > 0 (floating
// types only; see VerifyUlpTolerance) an element matches when it is within
// that many units in the last place of the expected value; NaN never
// matches. Integer types always compare exactly.
cudaError_t LaunchDeviceCountWrong(const pattern::PatternSpec& spec, DataType type, int rank,
                                   const void* recv, uint32_t ulp_tolerance,
                                   unsigned long long* counter, cudaStream_t stream);

}  // namespace eb::transport
