#include "coordinator/validation/link_observations.h"

#include <algorithm>

namespace eb::validation {

std::vector<topology::LinkObservation> LinkObservationsOf(
    const std::vector<Observation>& observations) {
  std::vector<topology::LinkObservation> out;
  for (const Observation& o : observations) {
    if (o.kind != TestKind::kPair || o.nodes.size() != 2 || !o.Completed() || !o.graded ||
        !o.rail_yardstick.has_value()) {
      continue;
    }
    const double base = o.rail_yardstick->base_gbps;
    for (const RailResult& rail : o.rails) {
      topology::LinkObservation link;
      link.a = o.nodes[0];
      link.b = o.nodes[1];
      link.rail = rail.rail;
      link.round = o.round;
      link.test_id = o.test_id;
      link.slow =
          std::find(o.slow_rails.begin(), o.slow_rails.end(), rail.rail) != o.slow_rails.end();
      link.ratio = base > 0 ? rail.busbw_gbps / base : 1;
      out.push_back(link);
    }
  }
  return out;
}

}  // namespace eb::validation
