#include "common/transport/nccl/nccl_device.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "common/gpu/pci_bus_id.h"
#include "common/status/cuda_status.h"
#include "spdlog/spdlog.h"

namespace eb::transport {
namespace {

class DeviceBuffer final : public Buffer {
 public:
  DeviceBuffer(int device, void* data, size_t size) : device_(device), data_(data), size_(size) {}
  ~DeviceBuffer() override {
    ScopedDevice guard(device_);
    const cudaError_t error = cudaFree(data_);
    if (error != cudaSuccess) {
      // Nothing to return to: log, and clear the error so that the next
      // unrelated check does not report it.
      spdlog::warn("{}", common::CudaErrorToStatus(error, "cudaFree").ToString());
    }
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() override { return data_; }
  size_t size_bytes() const override { return size_; }

 private:
  const int device_;
  void* const data_;
  const size_t size_;
};

}  // namespace

ScopedDevice::ScopedDevice(int device) {
  if (cudaGetDevice(&previous_) != cudaSuccess) {
    (void)cudaGetLastError();
    previous_ = -1;
  }
  if (previous_ != device) {
    status_ = common::CudaErrorToStatus(cudaSetDevice(device),
                                        absl::StrCat("cudaSetDevice(", device, ")"));
  }
}

ScopedDevice::~ScopedDevice() {
  int current = -1;
  if (previous_ < 0 || cudaGetDevice(&current) != cudaSuccess || current == previous_) {
    (void)cudaGetLastError();
    return;
  }
  if (cudaSetDevice(previous_) != cudaSuccess) (void)cudaGetLastError();
}

absl::StatusOr<DeviceInfo> QueryDevice(int device) {
  DeviceInfo info;
  EB_CUDA_RETURN_IF_ERROR(cudaGetDeviceCount(&info.device_count));
  if (device < 0 || device >= info.device_count) {
    return absl::InvalidArgumentError(absl::StrCat("cuda_device: ", device,
                                                   " is not a device of this node (",
                                                   info.device_count, " visible)"));
  }
  int major = 0;
  int minor = 0;
  EB_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  EB_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  info.compute_capability = 10 * major + minor;
  return info;
}

absl::Status CheckDevicePciBusId(int device, const std::string& expected, int rank) {
  if (expected.empty()) return absl::OkStatus();
  // "dddd:bb:dd.f" needs 13 bytes; CUDA documents 13, NVML's longer form 16.
  char actual[32] = {};
  EB_CUDA_RETURN_IF_ERROR(cudaDeviceGetPCIBusId(actual, sizeof(actual), device));
  return common::CheckSamePciBusId(actual, expected, device, rank);
}

absl::StatusOr<std::unique_ptr<Buffer>> AllocateDeviceBuffer(int device, size_t bytes) {
  if (bytes == 0) bytes = 1;
  ScopedDevice guard(device);
  if (!guard.status().ok()) return guard.status();
  void* data = nullptr;
  const cudaError_t error = cudaMalloc(&data, bytes);
  if (error != cudaSuccess) {
    const absl::Status status = common::CudaErrorToStatus(error, "cudaMalloc");
    if (error == cudaErrorMemoryAllocation) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "cannot allocate ", bytes, " bytes on cuda device ", device, ": ", status.message()));
    }
    return status;
  }
  return std::unique_ptr<Buffer>(new DeviceBuffer(device, data, bytes));
}

}  // namespace eb::transport
