#pragma once

// The stall deadline of a size (issue 29, item 6: a hang named within 5 s,
// with the shipped defaults). The step deadline (2 min by default) is the
// outer bound of a size; inside it, once the call in flight is not a
// warm-up call, a size in which no rank completed a call for
//
//   max(floor, kCallFactor x the time the next report's calls should take,
//       kGapFactor x the longest silence of one rank between its reports)
//
// is stuck: the TestRun ends it (DeadlineJudge::Stalled, NO_PROGRESS when
// every rank is in the same call). Why each term (docs/DESIGN.md, "The
// stall deadline"):
//   - with NCCL, a size's first call (its warm-up) is never judged by this
//     rule: NCCL connects lazily on the first call of an algorithm, which may
//     take seconds on a big fleet; only the step deadline judges it. The
//     in-place variant's untimed call is judged: same algorithm, connected.
//     Gloo connects every pair when its communicator is made, so every call
//     of it is judged (the culprit battery's dead path waited 120 s twice
//     in 8 runs while sizes' first calls were exempt);
//   - the floor (4 s by default, `timeouts.stall`) is above TCP's
//     retransmission back-off on a lossy link (RTO 200 ms doubling: 4 losses
//     of one segment in a row stall it 3.0 s; 5, 6.2 s) and above the agent's
//     hang timeout plus its check (2.75 s), so that a stopped rank is named
//     by its agent (WORKER_HUNG) before its peers' stall blames the path;
//   - the expected call time comes from what was measured: the size's own
//     timed calls (a backend that reports them one by one, Gloo), else the
//     previous size of the same collective scaled by bytes (an upper bound
//     when time grows affinely with bytes); nothing measured, no judgment;
//     a backend that completes the timed batch as a whole (NCCL) reports a
//     batch at a time, so its next report may be a whole batch away;
//   - only the path: the rule judges only while every rank waits on its
//     peers (in a call or a barrier, IterationProgress.waiting_on_peers, or
//     done with the size). A rank in its own work between calls (filling or
//     checking its buffers) that does not finish it is starved of CPU, not
//     a path that carries nothing (a CFS quota on a loaded host took > 4 s
//     to fill 8 MiB); a stopped one is its agent's to name;
//   - the reports' own cadence: a rank reports at most once per worker
//     heartbeat (an agent's setting the coordinator does not know), so the
//     longest silence seen between one rank's reports bounds the rule from
//     below.
// Pure; owned by the TestRun, on its executor, beside SizeProgressWatch
// (which gives the laggard's position).

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/core/collective_tests/run_deadlines.h"
#include "coordinator/core/collective_tests/size_progress.h"
#include "coordinator/core/collective_tests/sweep_plan.h"
#include "ebnccl/v1/agent.pb.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

// What the rule reads about the size in progress.
struct StallInputs {
  int fewest_calls = 0;           // the laggard's calls done in the size
  int calls_planned = 0;          // 2 x (1 + iterations + check_iterations); 0: no report yet
  int iterations = 0;             // timed calls per variant
  bool calls_one_by_one = false;  // timed calls are reported one by one
  bool connects_lazily = true;    // on a size's first call (NCCL; not Gloo)
  double call_us = 0;             // a call's expected time; 0: nothing measured
  absl::Duration longest_gap;     // longest silence of one rank between its reports
};

inline constexpr double kStallCallFactor = 4;
inline constexpr double kStallGapFactor = 1.5;

// Whether the call after `calls_done` calls of a size is a warm-up call: its
// first, on a backend that `connects_lazily`.
bool NextCallWarmsUp(int calls_done, bool connects_lazily);

// How long no rank may complete a call before the size counts as stuck;
// nullopt when the rule does not judge (a warm-up call in flight, nothing
// reported or measured yet).
std::optional<absl::Duration> StallLimit(const StallInputs& in, absl::Duration floor);

class StallWatch {
 public:
  // `report` (its spec and rows) and `sweep` must outlive the watch.
  StallWatch(const ebnccl::v1::TestReport& report, const TestSweep& sweep, absl::Duration floor);

  // Every rank is in step `index` since `now`.
  void EnterStep(int index, absl::Time now);
  // `rank` reported `progress` of the current step (others are ignored):
  // whether it waits on its peers, and with `news` (SizeProgressWatch::Record
  // said it completed calls) when.
  void Heard(int rank, const ebnccl::v1::IterationProgress& progress, absl::Time now, bool news);
  // `rank` finished the current step (it waits on the others in the next):
  // news too, of no call count.
  void MovedOn(int rank, absl::Time now);

  // When the current step counts as stuck unless news comes first; nullopt
  // while the rule does not judge (a rank in its own work between calls,
  // a warm-up call, nothing measured). `position`: the laggard's, from
  // SizeProgressWatch.
  std::optional<absl::Time> Deadline(const SizeProgressWatch::Summary& position) const;
  absl::Time last_news() const { return last_news_; }
  // The rule's figures, for the failure's message: "limit 4s: max(floor 4s,
  // 4 x 1 call of ~12 ms, 1.5 x 0.31s between one rank's reports)".
  std::string Explain(const SizeProgressWatch::Summary& position) const;

 private:
  StallInputs Inputs(const SizeProgressWatch::Summary& position) const;
  void SetWaiting(size_t rank, bool waiting);
  // A call's expected time from the previous size of the same collective,
  // scaled to this one; 0 when there is none.
  double CallUsFromPreviousSize() const;

  const ebnccl::v1::TestReport& report_;
  const TestSweep& sweep_;
  const absl::Duration floor_;
  int step_ = -1;
  absl::Time last_news_ = absl::InfinitePast();
  // Per rank, in the current step: when it last reported news, and its
  // calls then (-1: none yet).
  std::vector<absl::Time> heard_at_;
  std::vector<int> heard_calls_;
  // Per rank: waits on its peers (its latest report said so, or it moved
  // on); and how many do not.
  std::vector<char> waiting_;
  int not_waiting_ = 0;
  // Over the whole test.
  absl::Duration longest_gap_;
  bool calls_one_by_one_ = false;
};

}  // namespace eb::coordinator
