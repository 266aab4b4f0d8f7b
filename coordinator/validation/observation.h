#pragma once

// Internal to the validation core: one test as it was run and judged. Node
// references are indices into the fleet (input order).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/validation/plan.h"
#include "coordinator/validation/yardstick.h"

namespace eb::validation {

struct Observation {
  int64_t test_id = 0;
  int round = 0;
  TestKind kind = TestKind::kIntra;
  std::vector<int> nodes;
  std::string purpose;
  bool recorded = false;

  Outcome outcome = Outcome::kCompleted;
  double busbw_gbps = 0;
  std::vector<RailResult> rails;
  std::vector<int> named;     // infra: lost nodes; hardware: nodes it is attributed to
  bool cut_short = false;     // completed, but stopped as too slow (TestResult::cut_short)
  int64_t graded_bytes = 0;   // TestResult::graded_bytes
  int64_t plateau_bytes = 0;  // TestResult::plateau_bytes
  std::string message;

  // Set when its round is complete (every test of the round recorded).
  bool graded = false;
  Grade grade = Grade::kUnjudged;  // the worse of the aggregate's and the rails'
  Grade aggregate_grade = Grade::kUnjudged;
  std::vector<int> slow_rails;  // rails graded borderline or slow
  Yardstick yardstick;
  std::optional<Yardstick> rail_yardstick;

  bool Completed() const { return recorded && outcome == Outcome::kCompleted; }
  bool Fine() const { return Completed() && graded && grade == Grade::kFine; }
  bool Slow() const { return Completed() && graded && IsSlow(grade); }
  bool Has(int node) const { return std::find(nodes.begin(), nodes.end(), node) != nodes.end(); }
  bool Names(int node) const { return std::find(named.begin(), named.end(), node) != named.end(); }
  // The other node of a pair test.
  int Partner(int node) const { return nodes[0] == node ? nodes[1] : nodes[0]; }
};

// How slow a completed observation is, relative to its yardstick: the
// aggregate's ratio to its base, or the worst slow rail's ratio to the rail
// base when that is lower (a bad rail hardly moves the aggregate).
inline double Severity(const Observation& o) {
  double ratio = o.yardstick.base_gbps > 0 ? o.busbw_gbps / o.yardstick.base_gbps : 1;
  if (o.rail_yardstick.has_value() && o.rail_yardstick->base_gbps > 0) {
    for (const RailResult& r : o.rails) {
      if (std::find(o.slow_rails.begin(), o.slow_rails.end(), r.rail) == o.slow_rails.end()) {
        continue;
      }
      ratio = std::min(ratio, r.busbw_gbps / o.rail_yardstick->base_gbps);
    }
  }
  return ratio;
}

// Whether the completed observations among `which` agree on how slow they
// are (Severity within the tolerance of each other). Failures (and nothing
// to compare) agree.
inline bool ObservationsAgree(const std::vector<Observation>& obs,
                              const std::vector<size_t>& which) {
  double low = 0, high = 0, tolerance = 0;
  bool first = true;
  for (size_t k : which) {
    const Observation& o = obs[k];
    if (o.outcome != Outcome::kCompleted || o.yardstick.base_gbps <= 0) continue;
    const double ratio = Severity(o);
    low = first ? ratio : std::min(low, ratio);
    high = first ? ratio : std::max(high, ratio);
    tolerance = o.yardstick.tolerance;
    first = false;
  }
  return first || high <= low * (1 + tolerance);
}

}  // namespace eb::validation
