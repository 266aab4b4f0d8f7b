#include "coordinator/core/collective_tests/run_deadlines.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/core/collective_tests/run_failures.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

std::string DeadlineText(absl::Duration deadline) {
  return absl::StrFormat("%.3gs", absl::ToDoubleSeconds(deadline));
}

DeadlineJudge::DeadlineJudge(const v1::TestReport& report, const RunProgress& progress,
                             const TestSweep& sweep, const TestRunTimeouts& timeouts)
    : report_(report), progress_(progress), sweep_(sweep), timeouts_(timeouts) {}

std::vector<v1::Failure> DeadlineJudge::PhaseExpired() const {
  switch (report_.state()) {
    case v1::TEST_STATE_LAUNCHING:
      return LaunchExpired();
    case v1::TEST_STATE_INITIALIZING:
      return InitExpired();
    default:
      return StepExpired();
  }
}

std::vector<v1::Failure> DeadlineJudge::LaunchExpired() const {
  std::vector<v1::Failure> failures;
  for (const int rank : progress_.RanksBelow(RunProgress::kRegistered)) {
    failures.push_back(RankFailure(
        report_, rank, v1::FAILURE_KIND_WORKER_REGISTRATION_TIMEOUT,
        absl::StrCat("did not start and register within ", DeadlineText(timeouts_.launch))));
  }
  return failures;
}

std::vector<v1::Failure> DeadlineJudge::InitExpired() const {
  // The ranks that never reached the rendezvous are the ones holding the
  // others up; name only them when there are any.
  const std::vector<int> missing = progress_.RanksBelow(RunProgress::kJoining);
  const std::vector<int> joining = progress_.RanksBelow(RunProgress::kJoined);
  if (missing.empty() && static_cast<int>(joining.size()) == progress_.world_size()) {
    // Every rank reached the rendezvous and none got through: what connects
    // them carried nothing, and no rank is behind another to be named.
    return {UnattributedFailure(
        v1::FAILURE_KIND_NO_PROGRESS,
        absl::StrCat("no rank joined the communicator within ", DeadlineText(timeouts_.init),
                     " although every rank reached the rendezvous: the network among the test's "
                     "nodes carried nothing (no rank is behind another, so none is named)"))};
  }
  const std::string message =
      !missing.empty()
          ? absl::StrCat("did not join the communicator within ", DeadlineText(timeouts_.init),
                         " (it never reached the rendezvous; the other ranks waited for it)")
          : absl::StrCat("started joining the communicator but did not complete within ",
                         DeadlineText(timeouts_.init), " while other ranks did");
  std::vector<v1::Failure> failures;
  for (const int rank : !missing.empty() ? missing : joining) {
    failures.push_back(RankFailure(report_, rank, v1::FAILURE_KIND_TIMEOUT, message));
  }
  return failures;
}

std::vector<v1::Failure> DeadlineJudge::StepExpired() const {
  const int slowest = progress_.SlowestLevel();
  const size_t stuck = static_cast<size_t>(RunProgress::StepAt(slowest));
  if (slowest == progress_.FastestLevel() && stuck < sweep_.steps.size()) {
    // Every rank is inside the same size and none is behind another: no
    // rank is to blame. Either the size is too big for the fabric in the
    // step deadline (a measurement), or the data path stopped.
    return {StuckSize(stuck)};
  }
  return SlowestRanks(absl::StrCat("made no progress for ", DeadlineText(timeouts_.step),
                                   " (stuck at ", sweep_.StepName(stuck), ")"));
}

std::vector<v1::Failure> DeadlineJudge::SlowestRanks(const std::string& message) const {
  std::vector<v1::Failure> failures;
  for (const int rank : progress_.RanksAt(progress_.SlowestLevel())) {
    failures.push_back(RankFailure(report_, rank, v1::FAILURE_KIND_TIMEOUT, message));
  }
  return failures;
}

std::vector<v1::Failure> DeadlineJudge::Stalled(absl::Duration silence,
                                                const std::string& rule) const {
  const int slowest = progress_.SlowestLevel();
  const size_t stuck = static_cast<size_t>(RunProgress::StepAt(slowest));
  // The stall limit lies above a rank's hang deadline, so a rank that
  // stopped running was named by its agent first: these ranks run, waiting
  // in calls that do not complete. Ranks behind the others are where the
  // data stopped arriving (one direction of a path cut: the others could
  // finish the size), said but not blamed.
  const std::string where =
      slowest == progress_.FastestLevel()
          ? std::string("every rank stuck in the same call, none behind another")
          : DescribeLaggards(
                "the data stopped reaching the ranks still in it, the others "
                "finished it");
  return {UnattributedFailure(
      v1::FAILURE_KIND_NO_PROGRESS,
      absl::StrCat("no rank completed a call for ", DeadlineText(silence), " at ",
                   sweep_.StepName(stuck), " (", rule, "): ", where,
                   "; so no rank is named: the data path among the test's nodes stopped "
                   "carrying traffic"))};
}

v1::Failure DeadlineJudge::StuckSize(size_t index) const {
  // Half the deadline: the prediction ignores latency, so anything near the
  // deadline is as likely slow as stuck.
  if (std::optional<v1::Failure> too_slow = TooSlow(index, 0.5, false)) {
    return *std::move(too_slow);
  }
  const int measured = report_.results_size();
  return UnattributedFailure(
      v1::FAILURE_KIND_NO_PROGRESS,
      absl::StrCat(
          "no rank made progress for ", DeadlineText(timeouts_.step), " (every rank stuck at size ",
          sweep_.steps[index].sweep_bytes,
          ", none behind another, so no rank is named: the data path among the test's nodes "
          "stopped carrying traffic",
          measured > 0 ? ", although the sizes measured so far predicted it would finish" : "",
          ")"));
}

std::optional<v1::Failure> DeadlineJudge::PredictedToMiss(size_t index) const {
  if (index >= sweep_.steps.size()) return std::nullopt;
  return TooSlow(index, 1.0, true);
}

std::optional<v1::Failure> DeadlineJudge::TooSlow(size_t index, double fraction,
                                                  bool predicted) const {
  const int measured = report_.results_size();
  if (measured == 0) return std::nullopt;
  const PlannedSize& stuck = sweep_.steps[index];
  const v1::TestSpec& spec = report_.spec();
  // What the sizes measured so far predict for this one: its calls (per
  // variant: one untimed, the timed batch, the checks) at the rate of the
  // largest size measured, which is bandwidth-bound if any is.
  const v1::SizeResult& last = report_.results(measured - 1);
  const double last_us = (last.out_of_place().time_us() + last.in_place().time_us()) / 2;
  const double scale = static_cast<double>(stuck.size_bytes) /
                       static_cast<double>(std::max<int64_t>(1, last.size_bytes()));
  const int calls = 2 * (1 + spec.iterations() + spec.check_iterations());
  const absl::Duration needed = absl::Microseconds(last_us * scale * calls);
  if (needed < timeouts_.step * fraction) return std::nullopt;
  double busbw_sum = 0;
  for (const v1::SizeResult& row : report_.results()) {
    busbw_sum += (row.out_of_place().busbw_gbps() + row.in_place().busbw_gbps()) / 2;
  }
  return UnattributedFailure(
      v1::FAILURE_KIND_TOO_SLOW,
      absl::StrFormat(
          "too slow: size %d B %s within the step deadline of %s (at the %.3f GB/s "
          "busbw measured at %d B it needs about %s); the sweep stopped there with %d of %d sizes "
          "measured, avg busbw so far %.3f GB/s",
          stuck.size_bytes, predicted ? "would not finish" : "could not finish",
          DeadlineText(timeouts_.step),
          (last.out_of_place().busbw_gbps() + last.in_place().busbw_gbps()) / 2, last.size_bytes(),
          DeadlineText(needed), measured, sweep_.steps.size(),
          busbw_sum / static_cast<double>(measured)));
}

v1::Failure DeadlineJudge::TotalExpired() const {
  return UnattributedFailure(
      v1::FAILURE_KIND_TIMEOUT,
      absl::StrCat("the test exceeded its deadline of ", DeadlineText(timeouts_.total), "; ",
                   DescribeLaggards("behind")));
}

std::string DeadlineJudge::DescribeLaggards(const char* what) const {
  std::vector<std::string> ranks;
  for (const int rank : progress_.RanksAt(progress_.SlowestLevel())) {
    ranks.push_back(DescribeRank(report_, rank));
  }
  return absl::StrCat(what, ": ", absl::StrJoin(ranks, ", "));
}

}  // namespace eb::coordinator
