#pragma once

// Whom a passed deadline of one test blames (docs/DESIGN.md, "Phases and
// deadlines"): the phase deadlines (launch, init, each step of the sweep)
// and the whole test's. The TestRun arms the timers; this reads where the
// ranks are (RunProgress) and what was measured (the report's rows) and
// says which failures to add, the first as the primary cause. Pure.

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/core/collective_tests/run_progress.h"
#include "coordinator/core/collective_tests/sweep_plan.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

// The stall limit's floor by default (coordinator.toml `timeouts.stall`;
// stall_watch.h says why 4 s).
inline constexpr absl::Duration kDefaultStallFloor = absl::Seconds(4);

struct TestRunTimeouts {
  absl::Duration total;
  absl::Duration launch;
  absl::Duration init;
  absl::Duration step;
  absl::Duration stop;
  // The floor of the stall limit inside a size (stall_watch.h).
  absl::Duration stall = kDefaultStallFloor;
};

// A deadline for a message: "30s", "1.5s".
std::string DeadlineText(absl::Duration deadline);

class DeadlineJudge {
 public:
  // Reads the three as they are when asked; they must outlive the judge.
  DeadlineJudge(const ebnccl::v1::TestReport& report, const RunProgress& progress,
                const TestSweep& sweep, const TestRunTimeouts& timeouts);

  // The deadline of the phase the test is in (report.state(): LAUNCHING,
  // INITIALIZING or RUNNING) passed. Launch: every rank that did not
  // register. Init: the ranks that never reached the rendezvous, else every
  // rank that did not join, or NO_PROGRESS naming no rank when every rank
  // reached the rendezvous and none joined. A step: every rank behind the
  // others, or, with all of them inside one size of the sweep, one failure
  // naming no rank (StuckSize).
  std::vector<ebnccl::v1::Failure> PhaseExpired() const;
  // The whole test's deadline passed: TIMEOUT, naming the ranks behind.
  ebnccl::v1::Failure TotalExpired() const;
  // Every rank just entered step `index` of the sweep: TOO_SLOW at once
  // when the sizes measured so far predict that it needs the whole step
  // deadline or more. It would miss it anyway; waiting it out only costs
  // the deadline (issue 29: a 50 Mbit/s host predicted to need 215 s for a
  // size waited 120 s for nothing).
  std::optional<ebnccl::v1::Failure> PredictedToMiss(size_t index) const;
  // No rank completed a call for `silence`, past the stall limit of the
  // size in progress (StallWatch; `rule` says its figures): NO_PROGRESS
  // naming no rank (the calls stopped: not a measurement, whatever the sizes
  // before predicted), the ranks behind others (if any) in its message.
  std::vector<ebnccl::v1::Failure> Stalled(absl::Duration silence, const std::string& rule) const;

 private:
  std::vector<ebnccl::v1::Failure> LaunchExpired() const;
  std::vector<ebnccl::v1::Failure> InitExpired() const;
  std::vector<ebnccl::v1::Failure> StepExpired() const;
  // TIMEOUT for every rank at the slowest level, with `message`.
  std::vector<ebnccl::v1::Failure> SlowestRanks(const std::string& message) const;
  // Every rank is inside step `index` of the sweep: TOO_SLOW when the sizes
  // measured so far predict that it needs at least half the step deadline
  // (TooSlow), else NO_PROGRESS: stuck, with nobody behind. Both rank -1.
  ebnccl::v1::Failure StuckSize(size_t index) const;
  // TOO_SLOW when the prediction for step `index` is at least `fraction`
  // of the step deadline; `predicted`: said before the deadline passed.
  std::optional<ebnccl::v1::Failure> TooSlow(size_t index, double fraction, bool predicted) const;
  // "<what>: rank 1 (...), rank 3 (...)": the slowest ranks.
  std::string DescribeLaggards(const char* what) const;

  const ebnccl::v1::TestReport& report_;
  const RunProgress& progress_;
  const TestSweep& sweep_;
  const TestRunTimeouts& timeouts_;
};

}  // namespace eb::coordinator
