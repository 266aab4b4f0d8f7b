#include "coordinator/core/collective_tests/rank_time_consistency.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "coordinator/core/collective_tests/run_failures.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

namespace {

// The median of `values` without the entry at `skip`.
double MedianWithout(const std::vector<double>& values, size_t skip) {
  std::vector<double> others;
  others.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (i != skip) others.push_back(values[i]);
  }
  const size_t middle = others.size() / 2;
  std::nth_element(others.begin(), others.begin() + static_cast<std::ptrdiff_t>(middle),
                   others.end());
  double median = others[middle];
  if (others.size() % 2 == 0) {
    median = (median + *std::max_element(others.begin(),
                                         others.begin() + static_cast<std::ptrdiff_t>(middle))) /
             2.0;
  }
  return median;
}

// Marks in `found` the ranks whose finish in `variant` cannot be true.
void CheckMeasurement(const v1::VariantResult& variant, int64_t size_bytes, bool in_place,
                      std::vector<ImpossibleFinish>& found) {
  const int ranks = variant.rank_time_us_size();
  if (ranks < 2 || variant.rank_arrival_us_size() != ranks ||
      static_cast<int>(found.size()) != ranks) {
    return;
  }
  std::vector<double> times(variant.rank_time_us().begin(), variant.rank_time_us().end());
  std::vector<double> finishes(times.size());
  for (int rank = 0; rank < ranks; ++rank) {
    finishes[static_cast<size_t>(rank)] =
        variant.rank_arrival_us(rank) + variant.rank_time_us(rank);
  }
  for (int rank = 0; rank < ranks; ++rank) {
    const auto at = static_cast<size_t>(rank);
    ImpossibleFinish& entry = found[at];
    ++entry.of;
    const double others_finish = MedianWithout(finishes, at);
    const double others_time = MedianWithout(times, at);
    const bool impossible = finishes[at] < kImpossibleFinishShare * others_finish &&
                            others_finish - finishes[at] >= kMinImpossibleGapUs &&
                            times[at] < kImpossibleFinishShare * others_time;
    if (!impossible) continue;
    if (entry.measurements++ == 0) {
      entry.size_bytes = size_bytes;
      entry.in_place = in_place;
      entry.finish_us = finishes[at];
      entry.others_median_us = others_finish;
    }
  }
}

}  // namespace

bool EveryRankWaitsForEveryRank(v1::Collective collective) {
  switch (collective) {
    case v1::COLLECTIVE_ALL_REDUCE:
    case v1::COLLECTIVE_ALL_GATHER:
    case v1::COLLECTIVE_REDUCE_SCATTER:
    case v1::COLLECTIVE_ALL_TO_ALL:
      return true;
    default:
      return false;
  }
}

std::vector<ImpossibleFinish> FindImpossibleFinishes(const v1::TestReport& report) {
  const int ranks = report.ranks_size();
  std::vector<ImpossibleFinish> found(static_cast<size_t>(ranks));
  for (int rank = 0; rank < ranks; ++rank) found[static_cast<size_t>(rank)].rank = rank;
  for (const v1::SizeResult& row : report.results()) {
    if (!EveryRankWaitsForEveryRank(CollectiveOfRow(report, row))) continue;
    CheckMeasurement(row.out_of_place(), row.size_bytes(), false, found);
    CheckMeasurement(row.in_place(), row.size_bytes(), true, found);
  }
  std::vector<ImpossibleFinish> impossible;
  for (const ImpossibleFinish& entry : found) {
    if (entry.measurements > 0 &&
        entry.measurements >= std::min(kMinImpossibleMeasurements, entry.of)) {
      impossible.push_back(entry);
    }
  }
  return impossible;
}

void JudgeRankTimes(absl::Span<const RankResults> /*ranks*/, v1::TestReport& report) {
  for (const ImpossibleFinish& entry : FindImpossibleFinishes(report)) {
    *report.add_failures() = RankFailure(
        report, entry.rank, v1::FAILURE_KIND_INCONSISTENT_TIMING,
        absl::StrFormat(
            "its times cannot all be true: at %d B %s its arrival plus its time per call is "
            "%.0f us against the other ranks' median of %.0f us, with its time under half "
            "theirs, and no rank finishes a collective before its peers (%d of %d "
            "measurements): a clock or a report that lies",
            entry.size_bytes, entry.in_place ? "in-place" : "out-of-place", entry.finish_us,
            entry.others_median_us, entry.measurements, entry.of));
  }
}

}  // namespace eb::coordinator
