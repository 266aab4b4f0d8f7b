// The GPU throttle probe (issue 29 item 6): NvmlGpuReader over a fake NVML
// function table (every error path), the window arithmetic
// (ThrottleBetween) and ReadingGpuThrottleProbe with a fake clock. No
// NVML, no GPU, no sleeps.

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "common/transport/gpu_throttle_probe.h"
#include "common/transport/nvml_throttle.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::transport {
namespace {

using ::testing::HasSubstr;
namespace nt = nvml_throttle;

// The fake NVML: plain C function pointers, so its state is global; each
// test starts from Reset().
struct FakeNvml {
  nt::Return init = nt::kSuccess;
  nt::Return handle = nt::kSuccess;
  std::string bus_id_asked;
  // Per policy: the code and the cumulative counter, ns.
  nt::Return violation[kGpuPolicies] = {};
  unsigned long long violation_ns[kGpuPolicies] = {};
  nt::Return reasons_code = nt::kSuccess;
  unsigned long long reasons = 0;
  int inits = 0;
  int shutdowns = 0;
};
FakeNvml fake;

NvmlThrottleFunctions FakeFunctions() {
  NvmlThrottleFunctions f;
  f.init = [] {
    ++fake.inits;
    return fake.init;
  };
  f.shutdown = [] {
    ++fake.shutdowns;
    return nt::kSuccess;
  };
  f.get_handle_by_pci_bus_id = [](const char* bus_id, nt::Device* device) {
    fake.bus_id_asked = bus_id;
    *device = reinterpret_cast<nt::Device>(&fake);
    return fake.handle;
  };
  f.get_violation_status = [](nt::Device, int policy, nt::ViolationTime* time) {
    time->reference_time = 1;
    time->violation_time = fake.violation_ns[policy];
    return fake.violation[policy];
  };
  f.get_clocks_event_reasons = [](nt::Device, unsigned long long* reasons) {
    *reasons = fake.reasons;
    return fake.reasons_code;
  };
  f.error_string = [](nt::Return code) { return code == 999 ? "Unknown Error" : "Not Found"; };
  return f;
}

class NvmlGpuReaderTest : public ::testing::Test {
 protected:
  void SetUp() override { fake = FakeNvml(); }
};

TEST_F(NvmlGpuReaderTest, ReadsEveryPolicyAndTheReasonsAndShutsDownOnce) {
  fake.violation_ns[1] = 41'200'000;  // thermal
  fake.reasons = 0x40;
  {
    auto reader = NvmlGpuReader::Open(FakeFunctions(), "0000:18:00.0");
    ASSERT_TRUE(reader.ok()) << reader.status();
    EXPECT_EQ(fake.bus_id_asked, "0000:18:00.0");
    absl::StatusOr<GpuCounters> counters = (*reader)->Read();
    ASSERT_TRUE(counters.ok()) << counters.status();
    EXPECT_EQ(counters->violation_ns[1], 41'200'000u);
    EXPECT_EQ(counters->violation_ns[0], 0u);
    EXPECT_EQ(counters->reasons, 0x40u);
    EXPECT_EQ(fake.shutdowns, 0);
  }
  EXPECT_EQ(fake.inits, 1);
  EXPECT_EQ(fake.shutdowns, 1);
}

TEST_F(NvmlGpuReaderTest, InitFailureIsUnavailableNamingNvmlsError) {
  fake.init = 999;
  auto reader = NvmlGpuReader::Open(FakeFunctions(), "0000:18:00.0");
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(reader.status().message(), HasSubstr("nvmlInit_v2: Unknown Error (999)"));
  EXPECT_EQ(fake.shutdowns, 0);
}

TEST_F(NvmlGpuReaderTest, AGpuNotFoundIsNotFoundNamingTheBusIdAndShutsDown) {
  fake.handle = nt::kErrorNotFound;
  auto reader = NvmlGpuReader::Open(FakeFunctions(), "0000:99:00.0");
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(reader.status().message(),
              HasSubstr("nvmlDeviceGetHandleByPciBusId_v2(0000:99:00.0): Not Found (6)"));
  EXPECT_EQ(fake.shutdowns, 1);
}

TEST_F(NvmlGpuReaderTest, AMissingEntryPointIsUnavailable) {
  NvmlThrottleFunctions f = FakeFunctions();
  f.get_violation_status = nullptr;
  EXPECT_EQ(NvmlGpuReader::Open(f, "0000:18:00.0").status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(fake.inits, 0);
}

// NOT_SUPPORTED is that policy (or the reasons) unknown, not a failure; any
// other error fails the reading, naming the policy.
TEST_F(NvmlGpuReaderTest, UnsupportedIsUnknownOtherErrorsFailTheReading) {
  auto reader = NvmlGpuReader::Open(FakeFunctions(), "0000:18:00.0");
  ASSERT_TRUE(reader.ok());
  fake.violation[2] = nt::kErrorNotSupported;
  fake.reasons_code = nt::kErrorNotSupported;
  absl::StatusOr<GpuCounters> counters = (*reader)->Read();
  ASSERT_TRUE(counters.ok());
  EXPECT_FALSE(counters->violation_ns[2].has_value());
  EXPECT_TRUE(counters->violation_ns[3].has_value());
  EXPECT_FALSE(counters->reasons.has_value());

  fake.violation[3] = 999;
  counters = (*reader)->Read();
  EXPECT_EQ(counters.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(counters.status().message(), HasSubstr("nvmlDeviceGetViolationStatus(board_limit)"));

  fake.violation[3] = nt::kSuccess;
  fake.reasons_code = 999;
  EXPECT_THAT((*reader)->Read().status().message(),
              HasSubstr("nvmlDeviceGetCurrentClocksEventReasons: Unknown Error"));
}

// A driver with neither reasons call: the reasons are unknown, the
// violation counters still read.
TEST_F(NvmlGpuReaderTest, NoReasonsEntryPointLeavesThemUnknown) {
  NvmlThrottleFunctions f = FakeFunctions();
  f.get_clocks_event_reasons = nullptr;
  f.error_string = nullptr;
  auto reader = NvmlGpuReader::Open(f, "0000:18:00.0");
  ASSERT_TRUE(reader.ok());
  absl::StatusOr<GpuCounters> counters = (*reader)->Read();
  ASSERT_TRUE(counters.ok());
  EXPECT_FALSE(counters->reasons.has_value());
}

TEST(ThrottleBetweenTest, DeltasClampedToTheWallReasonsOredBackwardsIsZero) {
  GpuCounters begin, end;
  begin.violation_ns = {1'000'000, 5'000'000, 0, 9'000'000, std::nullopt, 0};
  end.violation_ns = {3'500'000, 500'000'000, 0, 1'000, 7, std::nullopt};
  begin.reasons = 0x40;
  end.reasons = 0x80;
  const GpuThrottleSample s = ThrottleBetween(begin, end, 100'000);
  EXPECT_DOUBLE_EQ(s.wall_us, 100'000);
  EXPECT_DOUBLE_EQ(s.violation_us[0], 2'500);    // power: 2.5 ms
  EXPECT_DOUBLE_EQ(s.violation_us[1], 100'000);  // thermal: 495 ms clamped to the 100 ms window
  EXPECT_DOUBLE_EQ(s.violation_us[3], 0);        // went backwards (driver reloaded)
  EXPECT_DOUBLE_EQ(s.violation_us[4], 0);        // unsupported at the start
  EXPECT_DOUBLE_EQ(s.violation_us[5], 0);        // unsupported at the end
  EXPECT_EQ(s.reasons, 0xC0u);
  EXPECT_TRUE(s.reasons_read);
  EXPECT_FALSE(ThrottleBetween(GpuCounters(), GpuCounters(), 10).reasons_read);
}

// The probe over a scripted reading and a fake clock: a sample per window;
// a failed reading is no sample, told once however often it fails.
TEST(ReadingGpuThrottleProbeTest, SamplesWindowsAndTellsTheFirstFailureOnce) {
  std::vector<absl::StatusOr<GpuCounters>> readings;
  GpuCounters a, b;
  a.violation_ns[1] = 0;
  b.violation_ns[1] = 30'000'000;
  readings = {a, b, absl::UnavailableError("gone"), b, absl::UnavailableError("gone again"), b};
  size_t next = 0;
  std::vector<std::string> told;
  GpuThrottleProbe::Instant now{};
  ReadingGpuThrottleProbe probe(
      [&] { return readings[next++]; },
      [&](const absl::Status& status) { told.emplace_back(status.message()); },
      [&] { return now; });

  GpuThrottleProbe::Mark mark = probe.Begin();
  now += std::chrono::milliseconds(100);
  std::optional<GpuThrottleSample> sample = probe.End(mark);
  ASSERT_TRUE(sample.has_value());
  EXPECT_DOUBLE_EQ(sample->wall_us, 100'000);
  EXPECT_DOUBLE_EQ(sample->violation_us[1], 30'000);

  mark = probe.Begin();  // fails
  EXPECT_FALSE(probe.End(mark).has_value());
  mark = probe.Begin();  // reads, then End fails
  EXPECT_FALSE(probe.End(mark).has_value());
  EXPECT_EQ(next, readings.size() - 1);
  EXPECT_EQ(told, std::vector<std::string>{"gone"});
}

}  // namespace
}  // namespace eb::transport
