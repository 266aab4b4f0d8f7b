#include "common/transport/gpu_throttle_probe.h"

#include <algorithm>
#include <utility>

namespace eb::transport {

GpuThrottleSample ThrottleBetween(const GpuCounters& begin, const GpuCounters& end,
                                  double wall_us) {
  GpuThrottleSample sample;
  sample.wall_us = std::max(0.0, wall_us);
  for (int p = 0; p < kGpuPolicies; ++p) {
    const std::optional<uint64_t>& from = begin.violation_ns[p];
    const std::optional<uint64_t>& to = end.violation_ns[p];
    if (!from.has_value() || !to.has_value() || *to < *from) continue;
    const double grown_us = static_cast<double>(*to - *from) / 1e3;
    sample.violation_us[p] = std::min(grown_us, sample.wall_us);
  }
  sample.reasons_read = begin.reasons.has_value() || end.reasons.has_value();
  sample.reasons = begin.reasons.value_or(0) | end.reasons.value_or(0);
  return sample;
}

ReadingGpuThrottleProbe::ReadingGpuThrottleProbe(
    Read read, std::function<void(const absl::Status&)> on_first_error, Now now)
    : read_(std::move(read)), on_first_error_(std::move(on_first_error)), now_(std::move(now)) {}

std::optional<GpuCounters> ReadingGpuThrottleProbe::ReadOrTell() {
  absl::StatusOr<GpuCounters> counters = read_();
  if (counters.ok()) return *std::move(counters);
  if (!told_ && on_first_error_) on_first_error_(counters.status());
  told_ = true;
  return std::nullopt;
}

GpuThrottleProbe::Mark ReadingGpuThrottleProbe::Begin() {
  Mark mark;
  mark.counters = ReadOrTell();
  // After the reading: the window starts where the calls do.
  mark.at = now_();
  return mark;
}

std::optional<GpuThrottleSample> ReadingGpuThrottleProbe::End(const Mark& begin) {
  const Instant at = now_();
  if (!begin.counters.has_value()) return std::nullopt;
  const std::optional<GpuCounters> end = ReadOrTell();
  if (!end.has_value()) return std::nullopt;
  const double wall_us = std::chrono::duration<double, std::micro>(at - begin.at).count();
  return ThrottleBetween(*begin.counters, *end, wall_us);
}

}  // namespace eb::transport
