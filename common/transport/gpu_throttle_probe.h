#pragma once

// The third signal of culprit attribution (docs/RELIABILITY.md, "GPU
// throttling"): how long this rank's GPU held itself below its clocks during
// a timed batch. A GPU that slows itself (thermal or power limit, HW
// slowdown, power brake) slows every call while its rank arrives on time and
// runs: neither arrivals nor schedules see it, only the GPU's own counters.

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace eb::transport {

// NVML's performance policies with a cumulative violation counter
// (nvmlPerfPolicyType_t 0-5; the values are the array indexes).
enum class GpuPolicy : int {
  kPower = 0,           // NVML_PERF_POLICY_POWER
  kThermal = 1,         // NVML_PERF_POLICY_THERMAL
  kSyncBoost = 2,       // NVML_PERF_POLICY_SYNC_BOOST
  kBoardLimit = 3,      // NVML_PERF_POLICY_BOARD_LIMIT
  kLowUtilization = 4,  // NVML_PERF_POLICY_LOW_UTILIZATION
  kReliability = 5,     // NVML_PERF_POLICY_RELIABILITY
};
inline constexpr int kGpuPolicies = 6;

// One reading of a GPU's counters.
struct GpuCounters {
  // Cumulative violation time per policy, ns (nvmlViolationTime_t.
  // violationTime); nullopt where NVML does not support the policy.
  std::array<std::optional<uint64_t>, kGpuPolicies> violation_ns;
  // nvmlClocksEventReasons bits; nullopt where NVML could not say.
  std::optional<uint64_t> reasons;
};

// What a probe measured over one window (one timed batch).
struct GpuThrottleSample {
  double wall_us = 0;
  // Growth of each violation counter over the window, us, clamped to
  // wall_us (NVML updates its counters coarsely: a window can see a step
  // that began before it); 0 for an unsupported policy.
  std::array<double, kGpuPolicies> violation_us{};
  uint64_t reasons = 0;  // OR of the reasons read at the window's ends
  bool reasons_read = false;
};

// The window's sample from its two readings. A counter that went backwards
// (the driver reloaded) counts 0. Pure.
GpuThrottleSample ThrottleBetween(const GpuCounters& begin, const GpuCounters& end, double wall_us);

// Samples around a window. Begin and End run on the thread that issues the
// collectives; an implementation must be cheap (a few driver calls).
class GpuThrottleProbe {
 public:
  using Instant = std::chrono::steady_clock::time_point;
  struct Mark {
    Instant at;
    std::optional<GpuCounters> counters;  // nullopt: the reading failed
  };
  virtual ~GpuThrottleProbe() = default;
  virtual Mark Begin() = 0;
  // nullopt when either reading failed: no sample, never a failed test.
  virtual std::optional<GpuThrottleSample> End(const Mark& begin) = 0;
};

// A probe over a reading function (NvmlGpuReader::Read on a worker, a fake
// in tests): each end of the window is one reading; a failed reading is no
// sample, and only the first failure is told to `on_first_error` (the
// worker logs it once: a GPU whose counters cannot be read fails every
// window alike).
class ReadingGpuThrottleProbe final : public GpuThrottleProbe {
 public:
  using Read = std::function<absl::StatusOr<GpuCounters>()>;
  using Now = std::function<Instant()>;
  ReadingGpuThrottleProbe(
      Read read, std::function<void(const absl::Status&)> on_first_error,
      Now now = [] { return std::chrono::steady_clock::now(); });

  Mark Begin() override;
  std::optional<GpuThrottleSample> End(const Mark& begin) override;

 private:
  std::optional<GpuCounters> ReadOrTell();

  const Read read_;
  const std::function<void(const absl::Status&)> on_first_error_;
  const Now now_;
  bool told_ = false;  // Begin and End run on one thread
};

}  // namespace eb::transport
