#include "coordinator/validation/link_observations.h"

namespace eb::validation {
namespace {

// A rail is slow for the links below (1 - tolerance) x its base, where the
// grader's slow_rails take (1 - 2 tolerance): a link at 80 % of its rate
// leaves its rails just above the grader's line. One noisy rail under this
// line costs link rounds, not a verdict: the tests that isolate its links
// clear them, and the pair's re-test does not reproduce it
// (docs/VALIDATION.md "Blaming links", the false-positive rows of
// BENCHMARKS.md).
bool SlowForLinks(const Observation& o, const RailResult& rail) {
  return o.rail_yardstick.has_value() && o.rail_yardstick->base_gbps > 0 &&
         rail.busbw_gbps < o.rail_yardstick->threshold_gbps();
}

}  // namespace

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
      link.slow = SlowForLinks(o, rail);
      link.ratio = base > 0 ? rail.busbw_gbps / base : 1;
      out.push_back(link);
    }
  }
  return out;
}

std::vector<int> LinkSlowRails(const Observation& o, bool single_rail) {
  if (single_rail) return o.Slow() ? std::vector<int>{0} : std::vector<int>{};
  std::vector<int> slow;
  for (const RailResult& rail : o.rails) {
    if (SlowForLinks(o, rail)) slow.push_back(rail.rail);
  }
  return slow;
}

}  // namespace eb::validation
