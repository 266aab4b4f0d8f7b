#pragma once

// What the ranks' progress reports (WORKER_EVENT_KIND_PROGRESS) say about the
// size every rank is in (issue 29, "progress by iteration"): whether a call
// completed, which is what the hang detector waits for, and whether the
// size can finish within the step deadline: one that progresses but cannot
// is a measurement (TOO_SLOW with the busbw of the calls done), found as
// soon as its calls predict it, or at the deadline. Pure; owned by the
// TestRun, on its executor.

#include <map>
#include <optional>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/core/collective_tests/sweep_plan.h"
#include "ebnccl/v1/agent.pb.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

class SizeProgressWatch {
 public:
  // Over every rank's latest report of the current step.
  struct Summary {
    int fewest_calls = 0;  // 0 while any rank has not reported a call
    int calls_planned = 0;
    int fewest_timed = 0;        // timed calls, the rank with the fewest
    double slowest_call_us = 0;  // the slowest timed rate; 0 when none timed
  };

  // The share of a size's calls, or of its step deadline, that must be
  // behind it before its calls so far predict the rest.
  static constexpr double kPredictionShare = 0.1;

  // `report` (its spec and ranks) and `sweep` must outlive the watch.
  SizeProgressWatch(const ebnccl::v1::TestReport& report, const TestSweep& sweep,
                    absl::Duration step_deadline);

  // Every rank is in step `index` of the sweep since `now`: the previous
  // size's reports are forgotten.
  void EnterStep(int index, absl::Time now);
  // `rank` reported `progress`: true when it is news about the current step
  // (more calls done than the rank had reported). Reports of another step
  // (late, or of a rank ahead) and out of range are ignored.
  bool Record(int rank, const ebnccl::v1::IterationProgress& progress);
  // TOO_SLOW when the timed calls so far predict that the size needs more
  // than the step deadline from its start; nullopt otherwise, and before
  // kPredictionShare of the size's calls or of its deadline have passed.
  std::optional<ebnccl::v1::Failure> PredictedOverrun(absl::Time now) const;
  // The step deadline passed since the size began: TOO_SLOW with what the
  // calls done measured when every rank completed timed calls in it, seen
  // one by one; nullopt otherwise (a hang, or a batch that completes as a
  // whole: the hang deadline judges).
  std::optional<ebnccl::v1::Failure> Overran(absl::Time now) const;
  // O(1): read off the counted values below, which each report updates in
  // O(log ranks). A test of thousands of ranks reports several times a
  // second per rank; a scan of every rank per report would be quadratic
  // on the coordinator's event loop.
  Summary Summarize() const;

 private:
  // `rank`'s current report leaves (remove) or joins (add) the counts.
  void Count(const ebnccl::v1::IterationProgress& progress, int delta);
  // busbw of one call of the current step at `call_us`; 0 when unknown.
  double BusbwAt(double call_us) const;
  ebnccl::v1::Failure TooSlow(const Summary& summary, absl::Duration needed, bool predicted) const;

  const ebnccl::v1::TestReport& report_;
  const TestSweep& sweep_;
  const absl::Duration step_deadline_;
  int step_ = -1;
  absl::Time entered_;
  std::vector<ebnccl::v1::IterationProgress> latest_;  // per rank; step -1: none
  // Over the ranks' latest reports of the current step (a rank without
  // one counts 0 calls): value -> number of ranks.
  std::map<int, int> calls_;
  std::map<int, int> timed_;
  std::map<int, int> planned_;     // ranks that reported
  std::map<double, int> call_us_;  // ranks with timed calls: their mean call time
};

}  // namespace eb::coordinator
