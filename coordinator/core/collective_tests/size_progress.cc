#include "coordinator/core/collective_tests/size_progress.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "common/spec/proto_enums.h"
#include "common/transport/bandwidth.h"
#include "common/transport/data_types.h"
#include "coordinator/core/collective_tests/run_deadlines.h"
#include "coordinator/core/collective_tests/run_failures.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

SizeProgressWatch::SizeProgressWatch(const v1::TestReport& report, const TestSweep& sweep,
                                     absl::Duration step_deadline)
    : report_(report), sweep_(sweep), step_deadline_(step_deadline) {}

void SizeProgressWatch::EnterStep(int index, absl::Time now) {
  step_ = index;
  entered_ = now;
  v1::IterationProgress none;
  none.set_step(-1);
  latest_.assign(static_cast<size_t>(report_.ranks_size()), none);
  calls_.clear();
  timed_.clear();
  planned_.clear();
  call_us_.clear();
  if (!latest_.empty()) {
    calls_[0] = static_cast<int>(latest_.size());
    timed_[0] = static_cast<int>(latest_.size());
  }
}

namespace {
template <typename Key>
void Adjust(std::map<Key, int>& counts, Key key, int delta) {
  auto [it, inserted] = counts.emplace(key, 0);
  it->second += delta;
  if (it->second <= 0) counts.erase(it);
}
}  // namespace

void SizeProgressWatch::Count(const v1::IterationProgress& p, int delta) {
  const bool current = p.step() == step_;
  Adjust(calls_, current ? p.calls_done() : 0, delta);
  Adjust(timed_, current ? p.timed_calls() : 0, delta);
  if (!current) return;
  Adjust(planned_, p.calls_planned(), delta);
  if (p.timed_calls() > 0) {
    Adjust(call_us_, static_cast<double>(p.timed_elapsed_us()) / p.timed_calls(), delta);
  }
}

bool SizeProgressWatch::Record(int rank, const v1::IterationProgress& progress) {
  if (step_ < 0 || rank < 0 || rank >= static_cast<int>(latest_.size())) return false;
  if (progress.step() != step_ || progress.calls_done() < 0 || progress.calls_planned() <= 0 ||
      progress.calls_done() > progress.calls_planned() || progress.timed_calls() < 0 ||
      progress.timed_elapsed_us() < 0) {
    return false;
  }
  v1::IterationProgress& latest = latest_[static_cast<size_t>(rank)];
  if (latest.step() == step_ && progress.calls_done() <= latest.calls_done()) return false;
  Count(latest, -1);
  latest = progress;
  Count(latest, +1);
  return true;
}

SizeProgressWatch::Summary SizeProgressWatch::Summarize() const {
  Summary s;
  if (!calls_.empty()) s.fewest_calls = calls_.begin()->first;
  if (!timed_.empty()) s.fewest_timed = timed_.begin()->first;
  if (!planned_.empty()) s.calls_planned = planned_.rbegin()->first;
  if (!call_us_.empty()) s.slowest_call_us = call_us_.rbegin()->first;
  return s;
}

double SizeProgressWatch::BusbwAt(double call_us) const {
  // The sweep's own sizes only: a rail's world is not the test's.
  if (call_us <= 0 || step_ < 0 || static_cast<size_t>(step_) >= sweep_.steps.size()) return 0;
  const PlannedSize& size = sweep_.steps[static_cast<size_t>(step_)];
  absl::StatusOr<transport::Collective> collective = spec::ToTransport(size.collective);
  absl::StatusOr<transport::DataType> type = spec::ToTransport(report_.spec().data_type());
  if (!collective.ok() || !type.ok()) return 0;
  return transport::ComputeBandwidth(*collective, size.count, transport::DataTypeSize(*type),
                                     report_.ranks_size(), call_us)
      .busbw_gbps;
}

std::optional<v1::Failure> SizeProgressWatch::PredictedOverrun(absl::Time now) const {
  const Summary s = Summarize();
  // Two timed calls at least: the first of a batch pays for what the
  // untimed call did not warm.
  if (s.slowest_call_us <= 0 || s.fewest_timed < 2 || s.calls_planned == 0) return std::nullopt;
  // And a share of the size behind it, in calls or in time: the first calls
  // of a long size may be slower than the rest (a cold allocator, a process
  // still starting under a sanitizer), and two of 400,000 calls are no
  // prediction of the others. Until then the step deadline judges.
  const double calls_share = static_cast<double>(s.fewest_calls) / s.calls_planned;
  const double time_share = absl::FDivDuration(now - entered_, step_deadline_);
  if (calls_share < kPredictionShare && time_share < kPredictionShare) return std::nullopt;
  const absl::Duration left =
      absl::Microseconds(s.slowest_call_us * (s.calls_planned - s.fewest_calls));
  const absl::Duration needed = (now - entered_) + left;
  if (needed <= step_deadline_) return std::nullopt;
  return TooSlow(s, needed, true);
}

std::optional<v1::Failure> SizeProgressWatch::Overran(absl::Time now) const {
  const Summary s = Summarize();
  // Only timed calls seen one by one show that the data path still moves:
  // a backend whose batch completes as a whole (NCCL) may be stuck inside
  // it, which the hang deadline judges.
  if (s.fewest_timed == 0 || s.slowest_call_us <= 0 || s.calls_planned == 0) return std::nullopt;
  const absl::Duration needed =
      (now - entered_) + absl::Microseconds(s.slowest_call_us * (s.calls_planned - s.fewest_calls));
  return TooSlow(s, needed, false);
}

v1::Failure SizeProgressWatch::TooSlow(const Summary& s, absl::Duration needed,
                                       bool predicted) const {
  const double busbw = BusbwAt(s.slowest_call_us);
  std::string rate = s.slowest_call_us > 0
                         ? absl::StrFormat("at %.0f us a call (%.3f GB/s busbw), it needs about %s",
                                           s.slowest_call_us, busbw, DeadlineText(needed))
                         : std::string("its calls were not timed one by one");
  v1::Failure failure = UnattributedFailure(
      v1::FAILURE_KIND_TOO_SLOW,
      absl::StrFormat("too slow: %s %s within the step deadline of %s: %d of %d calls done; %s; "
                      "the sweep stopped there with %d of %d sizes measured",
                      sweep_.StepName(static_cast<size_t>(step_)),
                      predicted ? "would not finish" : "did not finish",
                      DeadlineText(step_deadline_), s.fewest_calls, s.calls_planned, rate,
                      report_.results_size(), sweep_.steps.size()));
  failure.set_measured_busbw_gbps(busbw);
  return failure;
}

}  // namespace eb::coordinator
