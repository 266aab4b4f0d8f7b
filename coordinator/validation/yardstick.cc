#include "coordinator/validation/yardstick.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "common/spec/counted.h"
#include "common/spec/wire_names.h"

namespace eb::validation {

std::string GradeName(Grade grade) { return spec::WireName(ToWire(grade)); }

bool IsSlow(Grade grade) { return grade == Grade::kBorderline || grade == Grade::kSlow; }

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + mid);
  return (lower + upper) / 2;
}

Yardstick MakeYardstick(const std::optional<Expected>& expected, const std::string& what,
                        const std::vector<double>& per_node_best, int tests, double tolerance) {
  Yardstick y;
  y.tolerance = tolerance;
  y.fleet_nodes = static_cast<int>(per_node_best.size());
  if (expected.has_value()) {
    y.expected_gbps = expected->busbw_gbps;
    y.expected_description = expected->description;
  } else {
    y.expected_description = absl::StrFormat("no expected value for %s", what);
  }
  if (y.fleet_nodes >= kMinFleetNodes && tests >= kMinFleetNodes) {
    y.fleet_median_gbps = Median(per_node_best);
  }

  if (y.expected_gbps && y.fleet_median_gbps) {
    const double e = *y.expected_gbps;
    const double m = *y.fleet_median_gbps;
    if (m >= (1 - tolerance) * e) {
      y.base_gbps = std::min(e, m);
      y.basis = absl::StrFormat("min(expected %.4g, fleet median %.4g over %s)", e, m,
                                spec::Counted(y.fleet_nodes, "node"));
      return y;
    }
    const int reach =
        static_cast<int>(std::count_if(per_node_best.begin(), per_node_best.end(),
                                       [&](double v) { return v >= (1 - tolerance / 2) * e; }));
    const int needed = std::max(2, static_cast<int>(std::ceil(y.fleet_nodes / 4.0)));
    if (reach >= needed) {
      y.base_gbps = e;
      y.basis = absl::StrFormat(
          "expected %.4g: the fleet median %.4g is below it, but %d of %d nodes reach it, so "
          "the hardware can",
          e, m, reach, y.fleet_nodes);
      return y;
    }
    y.base_gbps = m;
    y.fleet_below_expected = true;
    y.basis = absl::StrFormat(
        "fleet median %.4g over %s: below expected %.4g and only %s it (the "
        "figure may not fit this configuration, or most of the fleet is slow)",
        m, spec::Counted(y.fleet_nodes, "node"), e,
        reach == 1 ? std::string("1 node reaches") : spec::Counted(reach, "node") + " reach");
    return y;
  }
  if (y.expected_gbps) {
    y.base_gbps = *y.expected_gbps;
    y.basis =
        absl::StrFormat("expected %.4g alone (a fleet median needs %s in %s; %d in %d so far)",
                        *y.expected_gbps, spec::Counted(kMinFleetNodes, "node"),
                        spec::Counted(kMinFleetNodes, "test"), y.fleet_nodes, tests);
    return y;
  }
  if (y.fleet_median_gbps) {
    y.base_gbps = *y.fleet_median_gbps;
    y.basis = absl::StrFormat("fleet median %.4g over %s alone: %s", *y.fleet_median_gbps,
                              spec::Counted(y.fleet_nodes, "node"), y.expected_description);
    return y;
  }
  y.basis = absl::StrFormat("not judged: %s, and too few results (%s in %s) for a fleet median",
                            y.expected_description, spec::Counted(y.fleet_nodes, "node"),
                            spec::Counted(tests, "test"));
  return y;
}

Grade GradeValue(double measured_gbps, const Yardstick& yardstick) {
  if (yardstick.base_gbps <= 0) return Grade::kUnjudged;
  if (measured_gbps < yardstick.clear_gbps()) return Grade::kSlow;
  if (measured_gbps < yardstick.threshold_gbps()) return Grade::kBorderline;
  return Grade::kFine;
}

}  // namespace eb::validation
