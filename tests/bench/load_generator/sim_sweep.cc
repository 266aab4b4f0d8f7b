// SimAgent's sweep when each size lasts a while (AgentBehaviour::size_time):
// the sizes one after the other on the scheduler's thread, and the ranks'
// PROGRESS reports in each, as real workers send them and the agent
// forwards them (issue 29 item 2).

#include <numeric>
#include <utility>

#include "absl/random/random.h"
#include "tests/bench/load_generator/sim_agent.h"
#include "tests/bench/load_generator/simulated_progress.h"

namespace eb::bench {
namespace v1 = ebnccl::v1;

void SimAgent::StartSize(const std::shared_ptr<Sweep>& sweep) {
  if (TestOver(sweep->test_id)) return;
  if (sweep->step >= static_cast<int>(sweep->sizes.size())) {
    FinishSweep(*sweep);
    return;
  }
  const int step = sweep->step;
  sweep->size_started = absl::Now();
  sweep->reported_calls.assign(sweep->ranks.size(), -1);
  scheduler_.PostAfter(behaviour_.size_time, [this, sweep, step] { EndSize(sweep, step); });
  if (behaviour_.progress_period <= absl::ZeroDuration()) return;
  // A worker's heartbeat thread started with its process, not with the
  // size: its first report comes anywhere within a period.
  absl::BitGen bits;
  const int64_t period_us = absl::ToInt64Microseconds(behaviour_.progress_period);
  auto phase = [&] { return absl::Microseconds(absl::Uniform<int64_t>(bits, 0, period_us)); };
  if (behaviour_.progress_together) {
    std::vector<size_t> all(sweep->ranks.size());
    std::iota(all.begin(), all.end(), size_t{0});
    scheduler_.PostAfter(
        phase(), [this, sweep, step, all = std::move(all)] { ReportProgress(sweep, step, all); });
    return;
  }
  for (size_t i = 0; i < sweep->ranks.size(); ++i) {
    scheduler_.PostAfter(phase(), [this, sweep, step, i] { ReportProgress(sweep, step, {i}); });
  }
}

void SimAgent::EndSize(const std::shared_ptr<Sweep>& sweep, int step) {
  if (sweep->step != step || TestOver(sweep->test_id)) return;
  SendSizeDone(*sweep, sweep->ranks, sweep->sizes[static_cast<size_t>(step)]);
  ++sweep->step;
  StartSize(sweep);
}

void SimAgent::ReportProgress(const std::shared_ptr<Sweep>& sweep, int step,
                              std::vector<size_t> members) {
  // Due before the size's end (EndSize, which moves the step on), so it
  // runs before it even when the scheduler is late (a loaded machine): a
  // rank reports at least once a size, with what it did by then.
  if (sweep->step != step || TestOver(sweep->test_id)) return;
  const absl::Duration elapsed = absl::Now() - sweep->size_started;
  const v1::IterationProgress progress = SimulatedProgress(
      step, elapsed, behaviour_.size_time, sweep->iterations, sweep->check_iterations);
  std::vector<int> ranks;
  for (size_t member : members) {
    // A worker reports only what is new (progress_board.h).
    if (progress.calls_done() <= sweep->reported_calls[member]) continue;
    sweep->reported_calls[member] = progress.calls_done();
    ranks.push_back(sweep->ranks[member]);
  }
  if (!ranks.empty()) {
    counters_.progress_events.fetch_add(static_cast<int64_t>(ranks.size()));
    SendEvents(sweep->test_id, ranks, v1::WORKER_EVENT_KIND_PROGRESS,
               [&progress](v1::WorkerEvent& event) { *event.mutable_progress() = progress; });
  }
  scheduler_.PostAfter(behaviour_.progress_period,
                       [this, sweep, step, members = std::move(members)]() mutable {
                         ReportProgress(sweep, step, std::move(members));
                       });
}

bool SimAgent::TestOver(const std::string& test_id) {
  absl::MutexLock lock(&mu_);
  auto it = tests_.find(test_id);
  return it == tests_.end() || it->second.stopped_sent || vanished_ || stopping_;
}

void SimAgent::FinishSweep(const Sweep& sweep) {
  SendEvents(sweep.test_id, sweep.ranks, v1::WORKER_EVENT_KIND_FINISHED);
  for (size_t i = 0; i < sweep.ranks.size(); ++i) RankDone(sweep.test_id);
}

}  // namespace eb::bench
