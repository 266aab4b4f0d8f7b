#include "common/transport/nccl/nccl_device.h"

#include <nccl.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "common/gpu/pci_bus_id.h"
#include "common/status/cuda_status.h"
#include "spdlog/spdlog.h"

// As ncclAlltoAll in nccl_collectives.cc: weak, so that the binary still
// loads on a libnccl older than 2.19 (the addresses are then null) rather
// than failing at load time under BIND_NOW or at the first call.
#pragma weak ncclMemAlloc
#pragma weak ncclMemFree

namespace eb::transport {
namespace {

// ncclMemAlloc exists from NCCL 2.19, which nccl-tests uses from then on.
constexpr int kNcclMemAllocVersion = 21900;

class DeviceBuffer final : public Buffer {
 public:
  // `from_nccl`: allocated by ncclMemAlloc (else cudaMalloc).
  DeviceBuffer(int device, void* data, size_t size, bool from_nccl)
      : device_(device), data_(data), size_(size), from_nccl_(from_nccl) {}
  ~DeviceBuffer() override {
    ScopedDevice guard(device_);
    if (from_nccl_) {
      const ncclResult_t result = ncclMemFree(data_);
      if (result != ncclSuccess) {
        spdlog::warn("{}", common::NcclResultToStatus(result, nullptr, "ncclMemFree").ToString());
      }
      return;
    }
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
  const bool from_nccl_;
};

bool NcclHasMemAlloc() {
  static const bool has = [] {
    int version = 0;
    return ncclGetVersion(&version) == ncclSuccess && version >= kNcclMemAllocVersion &&
           &ncclMemAlloc != nullptr && &ncclMemFree != nullptr;
  }();
  return has;
}

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
  // As nccl-tests allocates its buffers: the memory NCCL itself would pick
  // (cuMem-backed, registrable), so that both measure the same copies. On
  // the H200 cudaMalloc'd buffers made 16 MiB-512 MiB copies 11-45% faster
  // than nccl-tests measured on its ncclMemAlloc'd ones.
  if (NcclHasMemAlloc()) {
    if (ncclMemAlloc(&data, bytes) == ncclSuccess) {
      return std::unique_ptr<Buffer>(new DeviceBuffer(device, data, bytes, /*from_nccl=*/true));
    }
    // E.g. no cuMem support (old driver, some VMs) or out of memory; the
    // cudaMalloc below tells the two apart.
    (void)cudaGetLastError();
    data = nullptr;
  }
  const cudaError_t error = cudaMalloc(&data, bytes);
  if (error != cudaSuccess) {
    const absl::Status status = common::CudaErrorToStatus(error, "cudaMalloc");
    if (error == cudaErrorMemoryAllocation) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "cannot allocate ", bytes, " bytes on cuda device ", device, ": ", status.message()));
    }
    return status;
  }
  return std::unique_ptr<Buffer>(new DeviceBuffer(device, data, bytes, /*from_nccl=*/false));
}

}  // namespace eb::transport
