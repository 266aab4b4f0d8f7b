#include "common/transport/schedule_probe.h"

#include <sys/resource.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "common/io/bounded_file.h"

namespace eb::transport {
namespace {

double ToUs(std::chrono::nanoseconds d) { return static_cast<double>(d.count()) / 1e3; }

}  // namespace

absl::StatusOr<int64_t> ParseSchedstatRunDelayNs(absl::string_view text) {
  const std::vector<absl::string_view> fields =
      absl::StrSplit(absl::StripAsciiWhitespace(text), ' ', absl::SkipEmpty());
  int64_t values[3] = {0, 0, 0};
  bool ok = fields.size() == 3;
  for (size_t i = 0; ok && i < 3; ++i)
    ok = absl::SimpleAtoi(fields[i], &values[i]) && values[i] >= 0;
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedstat: '", text.substr(0, 80), "' is not three whole numbers"));
  }
  return values[1];
}

std::chrono::nanoseconds StalledWithin(const std::vector<StallInterval>& stalls,
                                       ScheduleProbe::Instant last_tick,
                                       ScheduleProbe::Instant begin, ScheduleProbe::Instant end,
                                       std::chrono::nanoseconds period,
                                       std::chrono::nanoseconds slack) {
  std::chrono::nanoseconds total{0};
  auto overlap = [&](ScheduleProbe::Instant from, ScheduleProbe::Instant to) {
    const auto lo = std::max(from, begin);
    const auto hi = std::min(to, end);
    if (hi > lo) total += std::chrono::duration_cast<std::chrono::nanoseconds>(hi - lo);
  };
  for (const StallInterval& stall : stalls) overlap(stall.from, stall.to);
  // The process was resumed and this thread ran before the ticker did: the
  // stall it is in the middle of noting is not in `stalls` yet.
  if (end - last_tick > period + slack) overlap(last_tick + period, end);
  return total;
}

ProcessScheduleProbe::ProcessScheduleProbe(std::chrono::nanoseconds period,
                                           std::chrono::nanoseconds slack,
                                           CpuLimitReader cpu_limits)
    : period_(period),
      slack_(slack),
      cpu_limits_(std::move(cpu_limits)),
      last_tick_(std::chrono::steady_clock::now()) {
  ticker_ = std::thread([this] { Tick(); });
}

ProcessScheduleProbe::~ProcessScheduleProbe() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  ticker_.join();
}

void ProcessScheduleProbe::Tick() {
  const absl::Duration period = absl::FromChrono(period_);
  mu_.Lock();
  while (!mu_.AwaitWithTimeout(absl::Condition(&stop_), period)) {
    const Instant now = std::chrono::steady_clock::now();
    // A wake-up this late means no thread of ours could run: stopped, or
    // waiting for a CPU. The due time, not the last tick, starts the stall.
    if (now - last_tick_ > period_ + slack_) {
      if (stalls_.size() >= kMaxStalls) stalls_.erase(stalls_.begin());
      stalls_.push_back({last_tick_ + period_, now});
    }
    last_tick_ = now;
  }
  mu_.Unlock();
}

ScheduleProbe::Mark ProcessScheduleProbe::Now() const {
  Mark mark;
  mark.at = std::chrono::steady_clock::now();
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    mark.cpu_us = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 +
                  static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
    mark.involuntary_switches = usage.ru_nivcsw;
  }
  // Absent without CONFIG_SCHEDSTATS: the wait reads 0, the ticker still
  // measures stalls.
  absl::StatusOr<std::string> schedstat =
      common::ReadBoundedFile("/proc/thread-self/schedstat", common::FileKind::kProcTable);
  if (schedstat.ok()) {
    if (absl::StatusOr<int64_t> ns = ParseSchedstatRunDelayNs(*schedstat); ns.ok()) {
      mark.run_delay_us = static_cast<double>(*ns) / 1e3;
    }
  }
  return mark;
}

ScheduleProbe::Mark ProcessScheduleProbe::Begin() {
  Mark mark = Now();
  mark.cpu_limit = cpu_limits_.Mark();
  return mark;
}

ScheduleSample ProcessScheduleProbe::End(const Mark& begin) {
  Mark end = Now();
  end.cpu_limit = cpu_limits_.MarkAgain(begin.cpu_limit);
  ScheduleSample sample;
  sample.wall_us = ToUs(std::chrono::duration_cast<std::chrono::nanoseconds>(end.at - begin.at));
  {
    absl::MutexLock lock(&mu_);
    sample.stalled_us = ToUs(StalledWithin(stalls_, last_tick_, begin.at, end.at, period_, slack_));
  }
  sample.stalled_us = std::min(sample.stalled_us, sample.wall_us);
  sample.cpu_us = std::max(0.0, end.cpu_us - begin.cpu_us);
  sample.involuntary_switches =
      std::max<int64_t>(0, end.involuntary_switches - begin.involuntary_switches);
  sample.run_delay_us = std::max(0.0, end.run_delay_us - begin.run_delay_us);
  // Summed over the CPUs the group was throttled on: at most the window.
  sample.throttled_us = std::min(ThrottledBetween(begin.cpu_limit, end.cpu_limit), sample.wall_us);
  return sample;
}

}  // namespace eb::transport
