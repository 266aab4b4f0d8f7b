#pragma once

// CUDA resources of the NCCL backend: the current-device guard and device
// memory behind the Buffer interface.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/transport/communicator.h"

namespace eb::transport {

// Makes `device` the calling thread's current CUDA device for the scope and
// restores the previous one on exit, so that a call from a foreign thread
// (Abort, a destructor on the test's main thread) does not rebind it.
// Check status() before relying on the device.
class ScopedDevice {
 public:
  explicit ScopedDevice(int device);
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

  // OK, or the status of the failed cudaSetDevice (see cuda_status.h).
  const absl::Status& status() const { return status_; }

 private:
  int previous_ = -1;
  absl::Status status_;
};

// Properties of one GPU that the backend checks.
struct DeviceInfo {
  int device_count = 0;
  int compute_capability = 0;  // 10*major + minor
};

// Checks that `device` exists on this node and reads its compute
// capability. INVALID_ARGUMENT "cuda_device: 3 is not a device of this node
// (2 visible)"; UNAVAILABLE when no CUDA device can be used (no driver).
// Thread-safe.
absl::StatusOr<DeviceInfo> QueryDevice(int device);

// OK when CUDA device `device` is the GPU at PCI bus id `expected` (any
// case or domain width; "" is not checked). FAILED_PRECONDITION naming both
// bus ids, the device and `rank` when it is another GPU (CUDA's device order
// differs from the agent's); the CUDA error when the id cannot be read.
absl::Status CheckDevicePciBusId(int device, const std::string& expected, int rank);

// Allocates `bytes` (at least 1) of device memory on `device` as nccl-tests
// does: ncclMemAlloc where the library has it (2.19+), else, or when that
// fails, cudaMalloc. RESOURCE_EXHAUSTED "cannot allocate N bytes on cuda
// device D" when it runs out. The Buffer frees it the matching way (on
// `device`) when destroyed, from any thread; both wait for work still
// using it.
absl::StatusOr<std::unique_ptr<Buffer>> AllocateDeviceBuffer(int device, size_t bytes);

}  // namespace eb::transport
