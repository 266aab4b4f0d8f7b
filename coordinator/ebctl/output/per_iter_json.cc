#include "coordinator/ebctl/output/per_iter_json.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace eb::ebctl {
namespace v1 = ebnccl::v1;
using nlohmann::json;

namespace {

size_t PercentileIndex(size_t n, size_t percentile) {
  // ceil(n * p / 100) - 1, clamped to the last element.
  const size_t rank = (n * percentile + 99) / 100;
  return std::min(n - 1, rank > 0 ? rank - 1 : 0);
}

}  // namespace

IterStats ComputeIterStats(std::vector<double> times) {
  IterStats stats;
  if (times.empty()) return stats;
  std::sort(times.begin(), times.end());
  const size_t n = times.size();
  stats.min = times.front();
  stats.max = times.back();
  stats.p50 = times[n / 2];
  stats.p95 = times[PercentileIndex(n, 95)];
  stats.p99 = times[PercentileIndex(n, 99)];
  double sum = 0;
  for (double t : times) sum += t;
  stats.avg = sum / static_cast<double>(n);
  double var = 0;
  for (double t : times) var += (t - stats.avg) * (t - stats.avg);
  stats.stdev = std::sqrt(var / static_cast<double>(n));
  return stats;
}

json PerIterToJson(const v1::VariantResult& variant) {
  if (variant.rank_iterations_size() == 0) return json();
  size_t iterations = static_cast<size_t>(variant.rank_iterations(0).time_us_size());
  for (const v1::IterationTimes& rank : variant.rank_iterations()) {
    iterations = std::min(iterations, static_cast<size_t>(rank.time_us_size()));
  }
  if (iterations == 0) return json();
  // nccl-tests reports, per iteration, the slowest process.
  std::vector<double> max_times(iterations, 0.0);
  json per_process = json::array();
  for (const v1::IterationTimes& rank : variant.rank_iterations()) {
    json row = json::array();
    for (size_t i = 0; i < iterations; ++i) {
      const double t = rank.time_us(static_cast<int>(i));
      max_times[i] = std::max(max_times[i], t);
      row.push_back(t);
    }
    per_process.push_back(std::move(row));
  }
  const IterStats stats = ComputeIterStats(max_times);
  json out{
      {"skipped_iterations", 0},
      {"min_us", stats.min},
      {"max_us", stats.max},
      {"avg_us", stats.avg},
      {"p50_us", stats.p50},
      {"p95_us", stats.p95},
      {"p99_us", stats.p99},
      {"stdev_us", stats.stdev},
      {"cv_pct", stats.avg > 0 ? stats.stdev / stats.avg * 100.0 : 0.0},
      {"times_us", max_times},
  };
  // Like nccl-tests: the per-process rows only with more than one process.
  if (variant.rank_iterations_size() > 1) out["per_process_max_times_us"] = std::move(per_process);
  return out;
}

}  // namespace eb::ebctl
