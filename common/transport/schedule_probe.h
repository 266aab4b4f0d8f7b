#pragma once

// The second signal of culprit attribution (docs/RELIABILITY.md,
// "Descheduled ranks"): how much of a timed batch this rank's process was
// not running. Arrival attribution cannot see a rank that is stopped or
// starved *inside* the calls: it arrives on time at each call, the calls
// just take longer for everyone. Only the rank itself can tell that its
// clock moved while none of its threads ran.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "common/transport/cgroup_cpu_limit.h"

namespace eb::transport {

// What a probe measured over one window (one timed batch).
struct ScheduleSample {
  double wall_us = 0;     // the window on the steady clock
  double stalled_us = 0;  // of it, ticker gaps past their slack (<= wall_us)
  double cpu_us = 0;      // process CPU time, all threads
  int64_t involuntary_switches = 0;
  double run_delay_us = 0;  // the calling thread's wait on a run queue
  // The window's time a CPU limit of the process's cgroup held it back
  // (cgroup_cpu_limit.h; <= wall_us): 0 with no limit.
  double throttled_us = 0;
};

// Samples around a window. Begin and End run on the thread that issues the
// collectives; an implementation must be cheap (a few syscalls).
class ScheduleProbe {
 public:
  using Instant = std::chrono::steady_clock::time_point;
  struct Mark {
    Instant at;
    double cpu_us = 0;
    int64_t involuntary_switches = 0;
    double run_delay_us = 0;
    CpuLimitMark cpu_limit;
  };
  virtual ~ScheduleProbe() = default;
  virtual Mark Begin() = 0;
  virtual ScheduleSample End(const Mark& begin) = 0;
};

// /proc/<pid>/schedstat or /proc/thread-self/schedstat: "<on-cpu ns>
// <run-queue wait ns> <timeslices>\n". The wait (run_delay), ns.
// INVALID_ARGUMENT naming the text when it is not three whole numbers.
absl::StatusOr<int64_t> ParseSchedstatRunDelayNs(absl::string_view text);

// A stall seen by the ticker: [from, to) on the steady clock.
struct StallInterval {
  ScheduleProbe::Instant from;
  ScheduleProbe::Instant to;
};

// How much of [begin, end) the stalls cover, plus a stall still open at
// `end` (the ticker has not woken since `last_tick`, later than `slack`
// past its period). Pure: the probe's arithmetic, unit-tested with fake
// instants.
std::chrono::nanoseconds StalledWithin(const std::vector<StallInterval>& stalls,
                                       ScheduleProbe::Instant last_tick,
                                       ScheduleProbe::Instant begin, ScheduleProbe::Instant end,
                                       std::chrono::nanoseconds period,
                                       std::chrono::nanoseconds slack);

// The real probe: getrusage(RUSAGE_SELF) for CPU time and involuntary
// switches, /proc/thread-self/schedstat for the run-queue wait, the
// cgroups' cpu.stat for the time a CPU limit held the process back, and a
// ticker thread that sleeps `period` at a time and records every wake-up
// later than period + slack as a stall. A SIGSTOPped process stops the
// ticker with it, so the gap shows; a CPU-starved one wakes it late. Why a
// ticker and not the counters alone: a stopped process is neither running
// (no CPU time) nor runnable (no run_delay), and being stopped counts as a
// voluntary switch, so none of the counters sees SIGSTOP; and a rank that
// waits in a collective spends no CPU either, so low CPU time is normal.
// The ticker is started by the constructor and joined by the destructor.
class ProcessScheduleProbe : public ScheduleProbe {
 public:
  // Stalls kept (the oldest dropped first): a window sees only the stalls
  // since its Begin, and a 30 ms-in-100 ms duty cycle adds ten a second.
  static constexpr size_t kMaxStalls = 4096;

  // `cpu_limits`: where the cgroups' throttled time is read (tests give a
  // fake tree); by default this process's.
  explicit ProcessScheduleProbe(std::chrono::nanoseconds period = std::chrono::milliseconds(1),
                                std::chrono::nanoseconds slack = std::chrono::milliseconds(4),
                                CpuLimitReader cpu_limits = CpuLimitReader::ForThisProcess());
  ~ProcessScheduleProbe() override;
  ProcessScheduleProbe(const ProcessScheduleProbe&) = delete;
  ProcessScheduleProbe& operator=(const ProcessScheduleProbe&) = delete;

  Mark Begin() override;
  ScheduleSample End(const Mark& begin) override;

 private:
  void Tick();
  Mark Now() const;

  const std::chrono::nanoseconds period_;
  const std::chrono::nanoseconds slack_;
  const CpuLimitReader cpu_limits_;
  absl::Mutex mu_;
  std::vector<StallInterval> stalls_ ABSL_GUARDED_BY(mu_);
  Instant last_tick_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread ticker_;
};

}  // namespace eb::transport
