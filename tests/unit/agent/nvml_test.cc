// QueryNvml against fake NVML entry points (no driver, no library): every
// call's result handled, the GPUs described, init and shutdown paired.

#include "agent/core/nvml.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// NVML return codes used below (nvml.h's nvmlReturn_t).
constexpr nvml::Return kDriverNotLoaded = 9;
constexpr nvml::Return kGpuIsLost = 15;

// One fake GPU of the fake NVML.
struct FakeDevice {
  std::string bus_id;
  std::string name;
  unsigned long long memory = 0;
  nvml::Return handle_result = nvml::kSuccess;
  nvml::Return pci_result = nvml::kSuccess;
  nvml::Return name_result = nvml::kSuccess;
  nvml::Return memory_result = nvml::kSuccess;
};

// The fake's state: plain C function pointers cannot capture, so the test
// fixture points this at its own state.
struct FakeNvmlState {
  nvml::Return init_result = nvml::kSuccess;
  nvml::Return count_result = nvml::kSuccess;
  std::vector<FakeDevice> devices;
  int inits = 0;
  int shutdowns = 0;
};
FakeNvmlState* fake = nullptr;

// Copies `text` into a C buffer of `size` bytes, terminated only when it
// fits (as NVML would not for a too-long value).
void Fill(char* out, size_t size, const std::string& text) {
  std::memcpy(out, text.data(), std::min(size, text.size()));
  if (text.size() < size) out[text.size()] = '\0';
}

// Handles are 1-based indices, so that a null handle is never valid.
FakeDevice& DeviceOf(nvml::Device device) {
  return fake->devices.at(reinterpret_cast<uintptr_t>(device) - 1);
}

NvmlFunctions FakeFunctions() {
  NvmlFunctions f;
  f.init = [] {
    ++fake->inits;
    return fake->init_result;
  };
  f.shutdown = [] {
    ++fake->shutdowns;
    return nvml::kSuccess;
  };
  f.get_count = [](unsigned int* count) {
    *count = static_cast<unsigned int>(fake->devices.size());
    return fake->count_result;
  };
  f.get_handle = [](unsigned int index, nvml::Device* device) {
    *device = reinterpret_cast<nvml::Device>(static_cast<uintptr_t>(index) + 1);
    return fake->devices.at(index).handle_result;
  };
  f.get_name = [](nvml::Device device, char* name, unsigned int length) {
    const FakeDevice& d = DeviceOf(device);
    if (d.name_result != nvml::kSuccess) return d.name_result;
    Fill(name, length, d.name);
    return nvml::kSuccess;
  };
  f.get_pci_info = [](nvml::Device device, nvml::PciInfo* pci) {
    const FakeDevice& d = DeviceOf(device);
    if (d.pci_result != nvml::kSuccess) return d.pci_result;
    Fill(pci->bus_id, sizeof(pci->bus_id), d.bus_id);
    return nvml::kSuccess;
  };
  f.get_memory = [](nvml::Device device, nvml::Memory* memory) {
    const FakeDevice& d = DeviceOf(device);
    if (d.memory_result != nvml::kSuccess) return d.memory_result;
    memory->total = d.memory;
    memory->free = d.memory;
    memory->used = 0;
    return nvml::kSuccess;
  };
  f.error_string = [](nvml::Return code) -> const char* {
    switch (code) {
      case kDriverNotLoaded:
        return "Driver Not Loaded";
      case kGpuIsLost:
        return "GPU is lost";
      default:
        return "Unknown Error";
    }
  };
  return f;
}

constexpr unsigned long long kNvmlH200Bytes = 143771ULL << 20;

class NvmlTest : public ::testing::Test {
 protected:
  NvmlTest() { fake = &state_; }
  ~NvmlTest() override { fake = nullptr; }

  void AddH200(const std::string& bus_id) {
    state_.devices.push_back({bus_id, "NVIDIA H200", kNvmlH200Bytes});
  }

  FakeNvmlState state_;
};

TEST_F(NvmlTest, DescribesEveryGpuAndShutsDown) {
  AddH200("00000000:18:00.0");
  AddH200("00000000:9A:00.0");
  auto report = QueryNvml(FakeFunctions());
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->gpus.size(), 2u);
  EXPECT_EQ(report->gpus[0].pci_bus_id, "00000000:18:00.0");
  EXPECT_EQ(report->gpus[0].name, "NVIDIA H200");
  EXPECT_EQ(report->gpus[0].memory_bytes, static_cast<int64_t>(kNvmlH200Bytes));
  EXPECT_EQ(report->gpus[1].pci_bus_id, "00000000:9A:00.0");
  EXPECT_THAT(report->problems, IsEmpty());
  EXPECT_EQ(state_.inits, 1);
  EXPECT_EQ(state_.shutdowns, 1);
}

TEST_F(NvmlTest, NoGpusIsAnEmptyReport) {
  auto report = QueryNvml(FakeFunctions());
  ASSERT_TRUE(report.ok());
  EXPECT_THAT(report->gpus, IsEmpty());
  EXPECT_EQ(state_.shutdowns, 1);
}

TEST_F(NvmlTest, FailedInitIsUnavailableWithNvmlsErrorAndNoShutdown) {
  state_.init_result = kDriverNotLoaded;
  auto report = QueryNvml(FakeFunctions());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(report.status().message()),
              HasSubstr("nvmlInit_v2: Driver Not Loaded (9)"));
  EXPECT_EQ(state_.shutdowns, 0);
}

TEST_F(NvmlTest, FailedCountIsUnavailableAndStillShutsDown) {
  state_.count_result = kDriverNotLoaded;
  auto report = QueryNvml(FakeFunctions());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("nvmlDeviceGetCount_v2"));
  EXPECT_EQ(state_.shutdowns, 1);
}

TEST_F(NvmlTest, ALostGpuIsAProblemAndTheOthersAreStillDescribed) {
  AddH200("00000000:18:00.0");
  AddH200("00000000:2A:00.0");
  state_.devices[1].handle_result = kGpuIsLost;
  AddH200("00000000:3B:00.0");
  auto report = QueryNvml(FakeFunctions());
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->gpus.size(), 2u);
  EXPECT_EQ(report->gpus[0].pci_bus_id, "00000000:18:00.0");
  EXPECT_EQ(report->gpus[1].pci_bus_id, "00000000:3B:00.0");
  EXPECT_THAT(report->problems,
              ElementsAre("NVML device 1: nvmlDeviceGetHandleByIndex_v2: GPU is lost (15)"));
}

TEST_F(NvmlTest, WithoutPciInfoTheGpuCannotBeMatchedAndIsLeftOut) {
  AddH200("00000000:18:00.0");
  state_.devices[0].pci_result = kGpuIsLost;
  auto report = QueryNvml(FakeFunctions());
  ASSERT_TRUE(report.ok());
  EXPECT_THAT(report->gpus, IsEmpty());
  ASSERT_EQ(report->problems.size(), 1u);
  EXPECT_THAT(report->problems[0], HasSubstr("nvmlDeviceGetPciInfo_v3"));
}

TEST_F(NvmlTest, MissingMemoryOrNameKeepsTheGpuWithWhatIsKnown) {
  AddH200("00000000:18:00.0");
  state_.devices[0].memory_result = kGpuIsLost;
  state_.devices[0].name_result = kGpuIsLost;
  auto report = QueryNvml(FakeFunctions());
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->gpus.size(), 1u);
  EXPECT_EQ(report->gpus[0].pci_bus_id, "00000000:18:00.0");
  EXPECT_EQ(report->gpus[0].name, "");
  EXPECT_EQ(report->gpus[0].memory_bytes, 0);
  EXPECT_EQ(report->problems.size(), 2u);
}

TEST_F(NvmlTest, UnterminatedBuffersAreCutAtTheirSize) {
  state_.devices.push_back({std::string(40, '7'), std::string(200, 'N'), 1});
  auto report = QueryNvml(FakeFunctions());
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->gpus.size(), 1u);
  EXPECT_EQ(report->gpus[0].pci_bus_id, std::string(32, '7'));
  EXPECT_EQ(report->gpus[0].name, std::string(nvml::kNameBufferSize, 'N'));
}

TEST_F(NvmlTest, WithoutErrorStringTheCodeIsShown) {
  state_.init_result = kDriverNotLoaded;
  NvmlFunctions functions = FakeFunctions();
  functions.error_string = nullptr;
  EXPECT_THAT(std::string(QueryNvml(functions).status().message()), HasSubstr("error 9"));
}

TEST(PciInfoLayoutTest, MatchesNvmlHeader) {
  // nvmlPciInfo_t: busIdLegacy[16], five unsigned ints, busId[32].
  EXPECT_EQ(sizeof(nvml::PciInfo), 16u + 5 * sizeof(unsigned int) + 32u);
  EXPECT_EQ(offsetof(nvml::PciInfo, bus_id), 16u + 5 * sizeof(unsigned int));
  EXPECT_EQ(sizeof(nvml::Memory), 3 * sizeof(unsigned long long));
}

}  // namespace
}  // namespace eb::agent
