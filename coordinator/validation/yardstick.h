#pragma once

// How one result is judged: against min(expected, fleet median) as issue 11
// says, with three refinements that keep healthy nodes from being blamed and
// bad ones from hiding (docs/VALIDATION.md "Thresholds"):
//  * The fleet median is the median over nodes of each node's best result of
//    the same kind of test: a healthy node that drew a bad partner once
//    still counts as healthy as soon as it did well with anyone, so the
//    median stays with the healthy majority (a median over results would
//    count each bad node's pairs against it).
//  * It needs results from kMinFleetNodes nodes in as many tests; with fewer
//    (2 or 3 nodes, or the first rounds of 4 or 5) the median would be the
//    result under test itself (or all of them could share one bad node),
//    and only the expected figure can judge.
//  * When the fleet median is itself below (1 - tolerance) x expected, the
//    expected figure is used if at least a quarter of the nodes (and 2)
//    reach (1 - tolerance / 2) x expected: the hardware evidently can, so
//    the median is dragged down by bad nodes, not the figure too high.
//    Otherwise the median is used and the report says the whole fleet is
//    below its expected figure.
// Slow results are graded in two bands: below (1 - 2 tolerance) x base is
// clearly slow, between that and (1 - tolerance) x base is borderline (a
// borderline result is re-tested before anyone is blamed). Pure.

#include <optional>
#include <string>
#include <vector>

#include "coordinator/validation/baselines.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::validation {

inline constexpr int kMinFleetNodes = 3;

// Defined as its wire values, as plan.h's enums are.
enum class Grade {
  kFine = ebnccl::v1::GRADE_FINE,  // at or above the threshold
  kBorderline =
      ebnccl::v1::GRADE_BORDERLINE,  // below (1 - tol) x base, at or above (1 - 2 tol) x base
  kSlow = ebnccl::v1::GRADE_SLOW,    // below (1 - 2 tol) x base
  kUnjudged =
      ebnccl::v1::GRADE_UNJUDGED,  // no expected figure and too few nodes for a fleet median
};
static_assert(static_cast<int>(Grade::kUnjudged) == ebnccl::v1::Grade_MAX);
constexpr ebnccl::v1::Grade ToWire(Grade grade) { return static_cast<ebnccl::v1::Grade>(grade); }
std::string GradeName(Grade grade);
bool IsSlow(Grade grade);  // kBorderline or kSlow

struct Yardstick {
  std::optional<double> expected_gbps;
  std::string expected_description;  // or why there is none
  std::optional<double> fleet_median_gbps;
  int fleet_nodes = 0;   // nodes behind the median (or seen so far)
  double base_gbps = 0;  // what the tolerance applies to; 0 = unjudged
  double tolerance = 0.10;
  // The median is below (1 - tol) x expected and too few nodes reach the
  // expected figure to trust it: the whole fleet is slow, or the figure
  // does not fit.
  bool fleet_below_expected = false;
  std::string basis;  // one line, for the evidence

  double threshold_gbps() const { return (1 - tolerance) * base_gbps; }
  double clear_gbps() const { return (1 - 2 * tolerance) * base_gbps; }
};

// Median of the values (mean of the middle two for an even count); 0 if none.
double Median(std::vector<double> values);

// `what` names the kind of test for the texts ("H200 x8 intra").
// `per_node_best`: one value per node that has a completed result; `tests`:
// how many completed tests they come from.
Yardstick MakeYardstick(const std::optional<Expected>& expected, const std::string& what,
                        const std::vector<double>& per_node_best, int tests, double tolerance);

Grade GradeValue(double measured_gbps, const Yardstick& yardstick);

}  // namespace eb::validation
