// The worker's GPU throttle probe against the real NVML of the GPU machine
// (docs/RELIABILITY.md, "GPU throttling"): GPU 0 found by its CUDA bus id,
// its violation counters and clock event reasons read over a 1 s window,
// and the worker's own probe over the same kind of window. Prints every
// raw reading as "NVML_THROTTLE ..." lines: the recording that backs
// tests/unit/transport/nvml_recorded_test.cc (save them on the GPU machine
// with: build/tests/nccl_bus_id_test --gtest_filter='NvmlThrottleGpu*' |
// grep '^NVML_THROTTLE' > tests/unit/transport/data/nvml_throttle_gpu0.txt).
// Skips where no GPU or no NVML is visible.

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "agent/worker/system_gpu_throttle.h"
#include "common/gpu/pci_bus_id.h"
#include "common/transport/gpu_throttle_probe.h"
#include "common/transport/nvml_throttle.h"
#include "gtest/gtest.h"
#include "tests/gpu/gpu_test_util.h"

namespace eb::transport {
namespace {

std::string CudaBusIdOf(int device) {
  char id[32] = {};
  EXPECT_EQ(cudaDeviceGetPCIBusId(id, sizeof(id), device), cudaSuccess);
  return id;
}

void PrintCounters(const char* when, const GpuCounters& counters) {
  for (int p = 0; p < kGpuPolicies; ++p) {
    if (counters.violation_ns[p].has_value()) {
      std::printf("NVML_THROTTLE %s %s %llu\n", when, GpuPolicyName(p),
                  static_cast<unsigned long long>(*counters.violation_ns[p]));
    } else {
      std::printf("NVML_THROTTLE %s %s unsupported\n", when, GpuPolicyName(p));
    }
  }
  if (counters.reasons.has_value()) {
    std::printf("NVML_THROTTLE %s reasons 0x%llx\n", when,
                static_cast<unsigned long long>(*counters.reasons));
  } else {
    std::printf("NVML_THROTTLE %s reasons unsupported\n", when);
  }
}

// The measurement window is real time on purpose: it is the recording, not
// the test's logic (which asserts only what holds on any GPU).
TEST(NvmlThrottleGpuTest, ReadsGpu0OverOneSecondAndRecordsIt) {
  EB_SKIP_UNLESS_GPUS(1);
  const absl::StatusOr<NvmlThrottleFunctions> functions = worker::LoadSystemNvmlThrottle();
  if (!functions.ok()) GTEST_SKIP() << functions.status();
  // The agent's spelling of the id (NVML's inventory, normalised).
  const std::string bus_id = common::CanonicalPciBusId(CudaBusIdOf(0));
  absl::StatusOr<std::unique_ptr<NvmlGpuReader>> reader = NvmlGpuReader::Open(*functions, bus_id);
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::printf("NVML_THROTTLE gpu %s reasons_call %s\n", bus_id.c_str(),
              functions->get_clocks_event_reasons != nullptr ? "present" : "absent");

  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<GpuCounters> begin = (*reader)->Read();
  ASSERT_TRUE(begin.ok()) << begin.status();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  absl::StatusOr<GpuCounters> end = (*reader)->Read();
  ASSERT_TRUE(end.ok()) << end.status();
  const double wall_us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  std::printf("NVML_THROTTLE window_us %.0f\n", wall_us);
  PrintCounters("begin", *begin);
  PrintCounters("end", *end);

  const GpuThrottleSample sample = ThrottleBetween(*begin, *end, wall_us);
  for (int p = 0; p < kGpuPolicies; ++p) {
    std::printf("NVML_THROTTLE sample %s %.0f\n", GpuPolicyName(p), sample.violation_us[p]);
    // Cumulative counters never go backwards on a live driver.
    if (begin->violation_ns[p].has_value() && end->violation_ns[p].has_value()) {
      EXPECT_GE(*end->violation_ns[p], *begin->violation_ns[p]) << GpuPolicyName(p);
    }
    EXPECT_LE(sample.violation_us[p], wall_us);
  }
}

// The worker's own path: the probe it builds from the agent's bus id, as
// around a timed batch.
TEST(NvmlThrottleGpuTest, TheWorkersProbeSamplesAWindow) {
  EB_SKIP_UNLESS_GPUS(1);
  const absl::StatusOr<NvmlThrottleFunctions> functions = worker::LoadSystemNvmlThrottle();
  if (!functions.ok()) GTEST_SKIP() << functions.status();
  std::unique_ptr<GpuThrottleProbe> probe =
      worker::OpenGpuThrottleProbe(functions, common::CanonicalPciBusId(CudaBusIdOf(0)));
  ASSERT_NE(probe, nullptr);
  const GpuThrottleProbe::Mark mark = probe->Begin();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const std::optional<GpuThrottleSample> sample = probe->End(mark);
  ASSERT_TRUE(sample.has_value());
  EXPECT_GE(sample->wall_us, 200'000);
  std::printf(
      "NVML_THROTTLE probe wall_us %.0f thermal_us %.0f power_us %.0f idle_us %.0f "
      "reasons 0x%llx\n",
      sample->wall_us, sample->violation_us[1], sample->violation_us[0], sample->violation_us[4],
      static_cast<unsigned long long>(sample->reasons));
  // A bus id no GPU has: no probe, never a failure.
  EXPECT_EQ(worker::OpenGpuThrottleProbe(functions, "0000:ff:1f.7"), nullptr);
}

}  // namespace
}  // namespace eb::transport
