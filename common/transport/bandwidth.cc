#include "common/transport/bandwidth.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace eb::transport {

double BusBwFactor(Collective collective, int nranks) {
  const double n = static_cast<double>(nranks);
  switch (Row(collective).busbw) {
    case BusBwRule::kTwiceRanksMinusOne:
      return (2.0 * (n - 1)) / n;
    case BusBwRule::kRanksMinusOneOverN:
      return (n - 1) / n;
    case BusBwRule::kOne:
      return 1.0;
  }
  return 1.0;
}

double AlgBwBytes(Collective collective, int64_t count, size_t type_size, int nranks) {
  const double bytes = static_cast<double>(count) * static_cast<double>(type_size);
  return Row(collective).count_is_chunk ? bytes * static_cast<double>(nranks) : bytes;
}

Bandwidth ComputeBandwidth(Collective collective, int64_t count, size_t type_size, int nranks,
                           double time_us) {
  Bandwidth bw;
  if (!(time_us > 0) || nranks < 1) return bw;
  // Same operation order as nccl-tests: bytes / 1e9 / seconds.
  const double seconds = time_us / 1.0E6;
  bw.algbw_gbps = AlgBwBytes(collective, count, type_size, nranks) / 1.0E9 / seconds;
  bw.busbw_gbps = bw.algbw_gbps * BusBwFactor(collective, nranks);
  return bw;
}

absl::StatusOr<RankTimeSummary> SummarizeRankTimes(Collective collective, int64_t count,
                                                   size_t type_size,
                                                   absl::Span<const double> times_us) {
  if (times_us.empty()) {
    return absl::InvalidArgumentError("times_us: no rank times to summarise");
  }
  RankTimeSummary summary;
  double sum = 0;
  for (size_t r = 0; r < times_us.size(); ++r) {
    const double t = times_us[r];
    if (!std::isfinite(t) || t < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("times_us: rank ", r, " has an invalid time ", t, " us"));
    }
    sum += t;
    if (r == 0 || t < summary.min_time_us) summary.min_time_us = t;
    if (r == 0 || t > summary.max_time_us) {
      summary.max_time_us = t;
      summary.slowest_rank = static_cast<int>(r);
    }
  }
  const int nranks = static_cast<int>(times_us.size());
  summary.avg_time_us = sum / nranks;
  summary.bandwidth = ComputeBandwidth(collective, count, type_size, nranks, summary.avg_time_us);
  return summary;
}

}  // namespace eb::transport
