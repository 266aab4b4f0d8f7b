// eb-worker's GPU throttle probe as it is built (OpenGpuThrottleProbe):
// nothing to read is no probe, never a failure; over a fake NVML table a
// window's counters grow into its sample. No NVML, no GPU, no sleeps.

#include "agent/worker/system_gpu_throttle.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::worker {
namespace {

namespace nt = transport::nvml_throttle;
using ::testing::HasSubstr;

// Every reading of the thermal counter is 7 ms further on.
unsigned long long fake_thermal_ns = 0;
nt::Return fake_handle_code = nt::kSuccess;

transport::NvmlThrottleFunctions FakeThrottleNvml() {
  transport::NvmlThrottleFunctions f;
  f.init = [] { return nt::kSuccess; };
  f.shutdown = [] { return nt::kSuccess; };
  f.get_handle_by_pci_bus_id = [](const char*, nt::Device* device) {
    *device = nullptr;
    return fake_handle_code;
  };
  f.get_violation_status = [](nt::Device, int policy, nt::ViolationTime* time) {
    time->violation_time = 0;
    if (policy == static_cast<int>(transport::GpuPolicy::kThermal)) {
      fake_thermal_ns += 7'000'000;
      time->violation_time = fake_thermal_ns;
    }
    return nt::kSuccess;
  };
  return f;
}

TEST(OpenGpuThrottleProbeTest, NothingToReadIsNoProbe) {
  fake_handle_code = nt::kSuccess;
  EXPECT_EQ(OpenGpuThrottleProbe(absl::UnavailableError("libnvidia-ml.so.1 cannot be loaded"),
                                 "0000:18:00.0"),
            nullptr);
  EXPECT_EQ(OpenGpuThrottleProbe(FakeThrottleNvml(), ""), nullptr);  // no bus id assigned
  fake_handle_code = nt::kErrorNotFound;
  EXPECT_EQ(OpenGpuThrottleProbe(FakeThrottleNvml(), "0000:18:00.0"), nullptr);
  fake_handle_code = nt::kSuccess;
}

TEST(OpenGpuThrottleProbeTest, SamplesTheCountersGrowthOverAWindow) {
  fake_handle_code = nt::kSuccess;
  std::unique_ptr<transport::GpuThrottleProbe> probe =
      OpenGpuThrottleProbe(FakeThrottleNvml(), "0000:18:00.0");
  ASSERT_NE(probe, nullptr);
  const transport::GpuThrottleProbe::Mark mark = probe->Begin();
  const std::optional<transport::GpuThrottleSample> sample = probe->End(mark);
  ASSERT_TRUE(sample.has_value());
  // 7 ms grown, clamped to however short the (real) window was.
  EXPECT_GT(sample->violation_us[1], 0);
  EXPECT_LE(sample->violation_us[1], std::min(7000.0, sample->wall_us));
  EXPECT_FALSE(sample->reasons_read);  // the fake has no reasons call
}

// On this host: NVML loads, or the reason names the library.
TEST(LoadSystemNvmlThrottleTest, LoadsOrSaysWhy) {
  const absl::StatusOr<transport::NvmlThrottleFunctions> loaded = LoadSystemNvmlThrottle();
  if (!loaded.ok()) {
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_THAT(std::string(loaded.status().message()), HasSubstr("libnvidia-ml.so.1"));
  } else {
    EXPECT_NE(loaded->get_violation_status, nullptr);
  }
}

}  // namespace
}  // namespace eb::worker
