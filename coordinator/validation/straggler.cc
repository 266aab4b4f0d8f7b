#include "coordinator/validation/straggler.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "coordinator/validation/yardstick.h"

namespace eb::validation {
namespace v1 = ebnccl::v1;
namespace {

struct SlowestTally {
  int count = 0;
  double excess_pct_sum = 0.0;
};

struct LateTally {
  int count = 0;
  double lag_us_sum = 0.0;
  double share_pct_sum = 0.0;
};

void PlaceRank(const v1::TestReport& report, v1::SlowestRank& result) {
  result.set_local_rank(-1);
  for (const v1::RankAssignment& rank : report.ranks()) {
    if (rank.rank() != result.rank()) continue;
    result.set_node_name(rank.node_name());
    result.set_local_rank(rank.local_rank());
    break;
  }
}

}  // namespace

double ChanceOfLateCount(int count, int measurements, int ranks) {
  if (count <= 0) return 1.0;
  if (count > measurements || ranks < 2) return 0.0;
  const double p = 1.0 / ranks;
  const double log_choose_base = std::lgamma(measurements + 1.0);
  double tail = 0.0;
  for (int k = count; k <= measurements; ++k) {
    tail += std::exp(log_choose_base - std::lgamma(k + 1.0) - std::lgamma(measurements - k + 1.0) +
                     k * std::log(p) + (measurements - k) * std::log1p(-p));
  }
  return std::min(1.0, ranks * tail);
}

Attribution AttributeByArrival(const google::protobuf::RepeatedPtrField<v1::SizeResult>& rows,
                               int ranks) {
  Attribution out;
  if (ranks < 2) return out;
  std::map<int32_t, LateTally> tallies;  // ordered, so ties go to the lower rank
  v1::ArrivalSummary summary;
  for (const v1::SizeResult& row : rows) {
    for (const v1::VariantResult* variant : {&row.out_of_place(), &row.in_place()}) {
      if (variant->rank_arrival_us_size() != ranks) continue;
      summary.set_measurements(summary.measurements() + 1);
      int latest = 0;
      for (int r = 1; r < ranks; ++r) {
        if (variant->rank_arrival_us(r) > variant->rank_arrival_us(latest)) latest = r;
      }
      std::vector<double> others;
      for (int r = 0; r < ranks; ++r) {
        if (r != latest) others.push_back(variant->rank_arrival_us(r));
      }
      const double lag = variant->rank_arrival_us(latest) - Median(others);
      const double call_us = variant->time_us();
      if (lag < kMinArrivalLagUs || lag < kMinArrivalLagShare * call_us) continue;
      summary.set_late_measurements(summary.late_measurements() + 1);
      summary.set_max_lag_us(std::max(summary.max_lag_us(), lag));
      LateTally& tally = tallies[latest];
      ++tally.count;
      tally.lag_us_sum += lag;
      // The lag cannot exceed the call it held up; clock noise aside.
      if (call_us > 0) tally.share_pct_sum += std::min(lag / call_us, 1.0) * 100.0;
    }
  }
  if (summary.measurements() == 0) return out;
  auto best = tallies.end();
  for (auto it = tallies.begin(); it != tallies.end(); ++it) {
    if (best == tallies.end() || it->second.count > best->second.count) best = it;
  }
  // A strict majority: noise makes a different rank late now and then, a
  // straggler is late nearly every time. And more often than chance: in a
  // group of two, one member or the other is late in most measurements.
  if (best != tallies.end() && 2 * best->second.count > summary.measurements() &&
      ChanceOfLateCount(best->second.count, summary.measurements(), ranks) <= kMaxStragglerChance) {
    v1::SlowestRank slowest;
    slowest.set_rank(best->first);
    slowest.set_local_rank(-1);
    slowest.set_slowest_count(best->second.count);
    slowest.set_measurements(summary.measurements());
    slowest.set_mean_excess_pct(best->second.share_pct_sum / best->second.count);
    slowest.set_mean_lag_us(best->second.lag_us_sum / best->second.count);
    slowest.set_basis("arrival");
    out.slowest = std::move(slowest);
  }
  summary.set_flat(!out.slowest.has_value());
  out.arrivals = summary;
  return out;
}

Attribution AttributeStraggler(const v1::TestReport& report) {
  Attribution out = AttributeByArrival(report.results(), report.ranks_size());
  if (!out.arrivals.has_value()) {
    out.slowest = FindSlowestRank(report);
    if (out.slowest.has_value()) out.slowest->set_basis("time");
    return out;
  }
  if (out.slowest.has_value()) PlaceRank(report, *out.slowest);
  return out;
}

std::optional<v1::SlowestRank> FindSlowestRank(const v1::TestReport& report) {
  std::map<int32_t, SlowestTally> tallies;  // ordered, so ties go to the lower rank
  int measurements = 0;
  for (const v1::SizeResult& row : report.results()) {
    for (const v1::VariantResult* variant : {&row.out_of_place(), &row.in_place()}) {
      const int ranks =
          variant->rank_time_us_size() > 0 ? variant->rank_time_us_size() : report.ranks_size();
      // With equal times nobody is a straggler; counting such rows would
      // just credit rank 0 (the default of slowest_rank).
      if (ranks < 2 || variant->slowest_rank() < 0 ||
          !(variant->max_time_us() > variant->min_time_us())) {
        continue;
      }
      ++measurements;
      SlowestTally& tally = tallies[variant->slowest_rank()];
      ++tally.count;
      if (variant->time_us() > 0) {
        tally.excess_pct_sum += (variant->max_time_us() / variant->time_us() - 1.0) * 100.0;
      }
    }
  }
  if (tallies.empty()) return std::nullopt;
  auto best = tallies.begin();
  for (auto it = tallies.begin(); it != tallies.end(); ++it) {
    if (it->second.count > best->second.count) best = it;
  }
  const double mean_excess_pct = best->second.excess_pct_sum / best->second.count;
  if (mean_excess_pct < kMinStragglerExcessPct) return std::nullopt;
  v1::SlowestRank result;
  result.set_rank(best->first);
  result.set_local_rank(-1);
  result.set_slowest_count(best->second.count);
  result.set_measurements(measurements);
  result.set_mean_excess_pct(mean_excess_pct);
  for (const v1::RankAssignment& rank : report.ranks()) {
    if (rank.rank() != result.rank()) continue;
    result.set_node_name(rank.node_name());
    result.set_local_rank(rank.local_rank());
    break;
  }
  return result;
}

}  // namespace eb::validation
