#include "coordinator/validation/straggler.h"

#include <map>

namespace eb::validation {
namespace v1 = ebnccl::v1;
namespace {

struct Tally {
  int count = 0;
  double excess_pct_sum = 0.0;
};

}  // namespace

std::optional<v1::SlowestRank> FindSlowestRank(const v1::TestReport& report) {
  std::map<int32_t, Tally> tallies;  // ordered, so ties go to the lower rank
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
      Tally& tally = tallies[variant->slowest_rank()];
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
