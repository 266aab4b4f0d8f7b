// The worker's device check against real GPUs: CUDA device i must be the
// GPU at the PCI bus id the agent's inventory gave it, before NCCL init.
// Skips where no GPU is visible.

#include <cuda_runtime_api.h>

#include <cctype>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/transport/nccl/nccl_communicator.h"
#include "common/transport/nccl/nccl_device.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/in_memory_rendezvous_store.h"
#include "tests/gpu/gpu_test_util.h"

namespace eb::transport {
namespace {

using ::eb::transport::testing::TestOptions;
using ::testing::AllOf;
using ::testing::HasSubstr;

std::string CudaBusId(int device) {
  char id[32] = {};
  EXPECT_EQ(cudaDeviceGetPCIBusId(id, sizeof(id), device), cudaSuccess);
  return id;
}

// NVML's spelling of the same id: 8-digit domain, upper case.
std::string NvmlSpelling(const std::string& cuda_id) {
  std::string upper = cuda_id;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return absl::StrCat("0000", upper);
}

TEST(NcclBusIdTest, EveryDeviceMatchesItsOwnBusIdInAnySpelling) {
  EB_SKIP_UNLESS_GPUS(1);
  for (int device = 0; device < testing::CudaDeviceCount(); ++device) {
    const std::string id = CudaBusId(device);
    EXPECT_TRUE(CheckDevicePciBusId(device, id, 0).ok()) << id;
    EXPECT_TRUE(CheckDevicePciBusId(device, NvmlSpelling(id), 0).ok()) << NvmlSpelling(id);
    EXPECT_TRUE(CheckDevicePciBusId(device, "", 0).ok());
  }
}

TEST(NcclBusIdTest, AnotherGpusBusIdIsFailedPreconditionNamingBoth) {
  EB_SKIP_UNLESS_GPUS(1);
  const absl::Status status = CheckDevicePciBusId(0, "0000:ff:1f.7", 3);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("rank 3"), HasSubstr(CudaBusId(0)), HasSubstr("0000:ff:1f.7")));
}

TEST(NcclBusIdTest, CommunicatorRefusesAWrongGpuBeforeInit) {
  EB_SKIP_UNLESS_GPUS(1);
  eb::testing::InMemoryRendezvousStore store;
  NcclOptions options = TestOptions(0, 1, 0);
  options.gpu_pci_bus_id = "0000:ff:1f.7";
  auto comm = CreateNcclCommunicator(options, store);
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kFailedPrecondition) << comm.status();
  // Nothing was published: init never started.
  EXPECT_EQ(store.sets(), 0);
  // The right id passes.
  options.gpu_pci_bus_id = CudaBusId(0);
  auto good = CreateNcclCommunicator(options, store);
  EXPECT_TRUE(good.ok()) << good.status();
}

}  // namespace
}  // namespace eb::transport
