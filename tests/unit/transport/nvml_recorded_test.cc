// NVML's real throttle counters of a GPU over a 1 s window, as recorded on
// the GPU machine by tests/gpu/nvml_throttle_gpu_test.cc ("NVML_THROTTLE"
// lines in tests/unit/transport/data/nvml_throttle_gpu0.txt), run through
// the worker's window arithmetic (ThrottleBetween): the units (ns in, us
// out), the clamp and the reasons are what a real driver gives. Skips,
// saying how to record it, until the recording is in the tree.

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "common/transport/gpu_throttle_probe.h"
#include "common/transport/nvml_throttle.h"
#include "gtest/gtest.h"

namespace eb::transport {
namespace {

struct Recording {
  double window_us = 0;
  GpuCounters begin;
  GpuCounters end;
  std::map<std::string, double> sample_us;  // what the GPU machine computed
};

// "NVML_THROTTLE <begin|end> <policy> <ns|unsupported>", "... <begin|end>
// reasons <0xN|unsupported>", "... window_us <us>", "... sample <policy> <us>".
bool ParseRecording(std::istream& in, Recording& out) {
  std::string line;
  bool any = false;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string tag, what, name, value;
    if (!(words >> tag >> what) || tag != "NVML_THROTTLE") continue;
    if (what == "window_us") {
      words >> out.window_us;
      any = true;
      continue;
    }
    if (!(words >> name >> value)) continue;
    if (what == "sample") {
      out.sample_us[name] = std::stod(value);
      continue;
    }
    if (what != "begin" && what != "end") continue;
    GpuCounters& counters = what == "begin" ? out.begin : out.end;
    if (name == "reasons") {
      if (value != "unsupported") counters.reasons = std::stoull(value, nullptr, 16);
      continue;
    }
    for (int p = 0; p < kGpuPolicies; ++p) {
      if (name == GpuPolicyName(p) && value != "unsupported") {
        counters.violation_ns[p] = std::stoull(value);
      }
    }
  }
  return any;
}

TEST(NvmlRecordedTest, ARealGpusWindowGivesWhatTheGpuMachineComputed) {
  std::ifstream file(std::string(EB_SOURCE_DIR) +
                     "/tests/unit/transport/data/nvml_throttle_gpu0.txt");
  Recording recording;
  if (!file || !ParseRecording(file, recording)) {
    GTEST_SKIP() << "no recording yet: on the GPU machine run build/tests/nccl_bus_id_test "
                    "--gtest_filter='NvmlThrottleGpu*' | grep '^NVML_THROTTLE' > "
                    "tests/unit/transport/data/nvml_throttle_gpu0.txt";
  }
  ASSERT_GT(recording.window_us, 1e6);  // the recorder's 1 s window
  const GpuThrottleSample sample =
      ThrottleBetween(recording.begin, recording.end, recording.window_us);
  for (int p = 0; p < kGpuPolicies; ++p) {
    SCOPED_TRACE(GpuPolicyName(p));
    EXPECT_LE(sample.violation_us[p], recording.window_us);
    if (recording.sample_us.count(GpuPolicyName(p)) > 0) {
      EXPECT_NEAR(sample.violation_us[p], recording.sample_us[GpuPolicyName(p)], 1.0);
    }
  }
}

}  // namespace
}  // namespace eb::transport
