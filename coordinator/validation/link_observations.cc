#include "coordinator/validation/link_observations.h"

#include <algorithm>

namespace eb::validation {

std::vector<topology::LinkObservation> LinkObservationsOf(
    const std::vector<Observation>& observations, bool single_rail) {
  std::vector<topology::LinkObservation> out;
  for (const Observation& o : observations) {
    if (o.kind != TestKind::kPair || o.nodes.size() != 2 || !o.Completed() || !o.graded) continue;
    topology::LinkObservation link;
    link.a = o.nodes[0];
    link.b = o.nodes[1];
    link.round = o.round;
    link.test_id = o.test_id;
    if (single_rail) {
      const double base = o.yardstick.base_gbps;
      link.rail = 0;
      link.slow = o.Slow();
      link.ratio = base > 0 ? o.busbw_gbps / base : 1;
      out.push_back(link);
      continue;
    }
    if (!o.rail_yardstick.has_value()) continue;
    const double base = o.rail_yardstick->base_gbps;
    for (const RailResult& rail : o.rails) {
      link.rail = rail.rail;
      link.slow =
          std::find(o.slow_rails.begin(), o.slow_rails.end(), rail.rail) != o.slow_rails.end();
      link.ratio = base > 0 ? rail.busbw_gbps / base : 1;
      out.push_back(link);
    }
  }
  return out;
}

std::vector<int> LinkSlowRails(const Observation& o, bool single_rail) {
  if (!single_rail) return o.slow_rails;
  return o.Slow() ? std::vector<int>{0} : std::vector<int>{};
}

}  // namespace eb::validation
