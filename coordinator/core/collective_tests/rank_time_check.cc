#include "coordinator/core/collective_tests/rank_time_check.h"

#include <algorithm>
#include <set>
#include <vector>

#include "absl/strings/str_format.h"
#include "coordinator/core/collective_tests/run_failures.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

namespace {

// The rank (or -1) whose time in `variant` stands kMaxRankTimeRatio from the
// median, and the two times.
struct Outlier {
  int rank = -1;
  double time_us = 0;
  double median_us = 0;
};

Outlier FindOutlier(const v1::VariantResult& variant) {
  const int n = variant.rank_time_us_size();
  if (n < 2) return {};
  std::vector<double> sorted(variant.rank_time_us().begin(), variant.rank_time_us().end());
  std::sort(sorted.begin(), sorted.end());
  // The upper median: with two ranks, the one that claims to be faster
  // stands out (a slowed clock makes a rank look fast).
  const double median = sorted[sorted.size() / 2];
  Outlier worst;
  double worst_gap = 0;
  for (int r = 0; r < n; ++r) {
    const double t = variant.rank_time_us(r);
    const double gap = t > median ? t - median : median - t;
    const double low = std::min(t, median);
    const double high = std::max(t, median);
    if (gap < kMinRankTimeGapUs || high < kMaxRankTimeRatio * low) continue;
    if (gap > worst_gap) {
      worst_gap = gap;
      worst = {r, t, median};
    }
  }
  return worst;
}

}  // namespace

void JudgeRankTimes(absl::Span<const RankResults> /*ranks*/, v1::TestReport& report) {
  std::set<int> blamed;
  std::vector<v1::Failure> failures;
  for (const v1::SizeResult& row : report.results()) {
    for (const v1::VariantResult* variant : {&row.out_of_place(), &row.in_place()}) {
      const Outlier outlier = FindOutlier(*variant);
      if (outlier.rank < 0 || outlier.rank >= report.ranks_size()) continue;
      if (!blamed.insert(outlier.rank).second) continue;
      failures.push_back(RankFailure(
          report, outlier.rank, v1::FAILURE_KIND_WRONG_DATA,
          absl::StrFormat("its time for one collective call of %d bytes, %.0f us, is over %gx "
                          "from the other ranks' (median %.0f us): no rank finishes a collective "
                          "apart from the others, so its clock or its report is wrong and the "
                          "results cannot be trusted",
                          row.size_bytes(), outlier.time_us, kMaxRankTimeRatio,
                          outlier.median_us)));
    }
  }
  for (v1::Failure& failure : failures) *report.add_failures() = std::move(failure);
}

}  // namespace eb::coordinator
