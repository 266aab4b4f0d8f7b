#include "coordinator/core/collective_tests/stall_watch.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "coordinator/core/collective_tests/run_deadlines.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

bool NextCallWarmsUp(int calls_done, bool connects_lazily) {
  // The size's first call: NCCL may pick another algorithm or protocol for a
  // new size and connect for it then. The in-place variant's untimed call
  // runs what the out-of-place one connected (NCCL chooses by collective,
  // type and bytes, not by placement): judged like any other. Gloo connects
  // every pair when the communicator is made: no call of its warms up.
  return connects_lazily && calls_done == 0;
}

std::optional<absl::Duration> StallLimit(const StallInputs& in, absl::Duration floor) {
  if (in.calls_planned <= 0 || NextCallWarmsUp(in.fewest_calls, in.connects_lazily)) {
    return std::nullopt;
  }
  if (in.call_us <= 0) return std::nullopt;
  // The next report may be a whole timed batch away when the backend
  // completes the batch as a whole.
  const int calls_per_report = in.calls_one_by_one ? 1 : std::max(1, in.iterations);
  const absl::Duration calls = absl::Microseconds(kStallCallFactor * calls_per_report * in.call_us);
  return std::max({floor, calls, kStallGapFactor * in.longest_gap});
}

StallWatch::StallWatch(const v1::TestReport& report, const TestSweep& sweep, absl::Duration floor)
    : report_(report), sweep_(sweep), floor_(floor) {}

void StallWatch::EnterStep(int index, absl::Time now) {
  step_ = index;
  last_news_ = now;
  heard_at_.assign(static_cast<size_t>(report_.ranks_size()), absl::InfinitePast());
  heard_calls_.assign(static_cast<size_t>(report_.ranks_size()), -1);
  waiting_.assign(static_cast<size_t>(report_.ranks_size()), 0);
  not_waiting_ = report_.ranks_size();
}

void StallWatch::SetWaiting(size_t rank, bool waiting) {
  if ((waiting_[rank] != 0) == waiting) return;
  waiting_[rank] = waiting ? 1 : 0;
  not_waiting_ += waiting ? -1 : 1;
}

void StallWatch::MovedOn(int rank, absl::Time now) {
  if (rank < 0 || static_cast<size_t>(rank) >= waiting_.size()) return;
  SetWaiting(static_cast<size_t>(rank), true);
  last_news_ = std::max(last_news_, now);
}

void StallWatch::Heard(int rank, const v1::IterationProgress& progress, absl::Time now, bool news) {
  if (rank < 0 || static_cast<size_t>(rank) >= heard_at_.size() || progress.step() != step_) {
    return;
  }
  SetWaiting(static_cast<size_t>(rank), progress.waiting_on_peers());
  if (!news) return;
  last_news_ = std::max(last_news_, now);
  if (progress.timed_calls() > 0) calls_one_by_one_ = true;
  const auto index = static_cast<size_t>(rank);
  const int before = heard_calls_[index];
  // A silence that held the size's warm-up call is no measure of the
  // reports' cadence.
  if (before >= 1) longest_gap_ = std::max(longest_gap_, now - heard_at_[index]);
  heard_at_[index] = now;
  heard_calls_[index] = progress.calls_done();
}

double StallWatch::CallUsFromPreviousSize() const {
  if (step_ < 1 || static_cast<size_t>(step_) >= sweep_.steps.size() ||
      report_.results_size() < step_) {
    return 0;
  }
  const PlannedSize& now = sweep_.steps[static_cast<size_t>(step_)];
  const PlannedSize& before = sweep_.steps[static_cast<size_t>(step_ - 1)];
  const v1::SizeResult& row = report_.results(step_ - 1);
  if (before.collective != now.collective || row.size_bytes() != before.size_bytes) return 0;
  const double row_us = std::max(row.out_of_place().time_us(), row.in_place().time_us());
  // Time grows at most in proportion to bytes from a smaller size (a fixed
  // latency plus a bandwidth term), so this bounds the call from above.
  const double scale = static_cast<double>(std::max<int64_t>(now.size_bytes, 1)) /
                       static_cast<double>(std::max<int64_t>(before.size_bytes, 1));
  return row_us * std::max(scale, 1.0);
}

StallInputs StallWatch::Inputs(const SizeProgressWatch::Summary& position) const {
  StallInputs in;
  in.fewest_calls = position.fewest_calls;
  const v1::TestSpec& spec = report_.spec();
  // Before any report of the size, the spec says (BenchmarkRunner's count).
  in.calls_planned = position.calls_planned > 0
                         ? position.calls_planned
                         : 2 * (1 + spec.iterations() + spec.check_iterations());
  in.iterations = spec.iterations();
  in.calls_one_by_one = calls_one_by_one_;
  in.connects_lazily = spec.transport() != v1::TRANSPORT_GLOO;
  in.call_us = position.slowest_call_us > 0 ? position.slowest_call_us : CallUsFromPreviousSize();
  in.longest_gap = longest_gap_;
  return in;
}

std::optional<absl::Time> StallWatch::Deadline(const SizeProgressWatch::Summary& position) const {
  // A rank in its own work between calls holds the others up, not the path.
  if (step_ < 0 || not_waiting_ > 0) return std::nullopt;
  std::optional<absl::Duration> limit = StallLimit(Inputs(position), floor_);
  if (!limit.has_value()) return std::nullopt;
  return last_news_ + *limit;
}

std::string StallWatch::Explain(const SizeProgressWatch::Summary& position) const {
  const StallInputs in = Inputs(position);
  const std::optional<absl::Duration> limit = StallLimit(in, floor_);
  return absl::StrFormat(
      "the stall limit %s: max(floor %s, %g x %d call%s of ~%.3g ms, %g x %s between one rank's "
      "reports); %d of %d calls done",
      DeadlineText(limit.value_or(floor_)), DeadlineText(floor_), kStallCallFactor,
      in.calls_one_by_one ? 1 : in.iterations, in.calls_one_by_one ? "" : "s", in.call_us / 1000,
      kStallGapFactor, DeadlineText(in.longest_gap), in.fewest_calls, in.calls_planned);
}

}  // namespace eb::coordinator
