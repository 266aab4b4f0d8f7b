#include "coordinator/ebctl/output/attribution_lines.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/spec/culprit_kinds.h"
#include "common/spec/wire_names.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;
namespace {

// The straggler the coordinator stored when the test finished, if any, or
// that the arrivals were flat (which alone does not clear the ranks: the
// culprit line says what both signals say).
std::string SlowestRankLine(const v1::TestReport& report) {
  if (!report.has_slowest_rank()) {
    if (report.has_arrivals() && report.arrivals().flat()) {
      return absl::StrFormat(
          "# Straggler: none by arrival; arrivals flat in %d measurements (no rank arrived "
          "late)\n",
          report.arrivals().measurements());
    }
    return "";
  }
  const v1::SlowestRank& slowest = report.slowest_rank();
  const std::string where =
      slowest.local_rank() >= 0
          ? absl::StrFormat(" (node %s, slot %d)", slowest.node_name(), slowest.local_rank())
          : std::string();
  if (slowest.basis() == "arrival") {
    return absl::StrFormat(
        "# Straggler: rank %d%s arrived last in %d of %d measurements, on average %.0f us "
        "behind the median rank (%.1f%% of the call time)\n",
        slowest.rank(), where, slowest.slowest_count(), slowest.measurements(),
        slowest.mean_lag_us(), slowest.mean_excess_pct());
  }
  if (slowest.basis() == "descheduled") {
    return absl::StrFormat(
        "# Straggler: rank %d%s was stalled (not running) %.1f%% of its timed calls, the most "
        "stalled rank in %d of %d measurements\n",
        slowest.rank(), where, slowest.mean_excess_pct(), slowest.slowest_count(),
        slowest.measurements());
  }
  if (slowest.basis() == "cpu_limit") {
    return absl::StrFormat(
        "# Straggler: rank %d%s was held back by its cgroup's CPU limit %.1f%% of its timed "
        "calls\n",
        slowest.rank(), where, slowest.mean_excess_pct());
  }
  if (slowest.basis() == "gpu_throttled") {
    return absl::StrFormat(
        "# Straggler: rank %d%s: its GPU was held below its clocks %.1f%% of the timed calls, "
        "the most throttled GPU in %d of %d measurements\n",
        slowest.rank(), where, slowest.mean_excess_pct(), slowest.slowest_count(),
        slowest.measurements());
  }
  return absl::StrFormat(
      "# Slowest rank overall: rank %d%s, slowest in %d of %d measurements, "
      "on average %.1f%% above the rank mean\n",
      slowest.rank(), where, slowest.slowest_count(), slowest.measurements(),
      slowest.mean_excess_pct());
}

// Who a slow result is to blame on (arrivals and schedules together).
std::string CulpritLine(const v1::TestReport& report) {
  if (report.culprit() == v1::CULPRIT_UNSPECIFIED) return "";
  const spec::CulpritKindRow& row = spec::RowOf(report.culprit());
  std::string kind = row.word;
  if (row.part_in_line) absl::StrAppend(&kind, " ", report.culprit_node());
  if (row.part_in_line &&
      (row.part == spec::CulpritPart::kPort || row.part == spec::CulpritPart::kGpu)) {
    absl::StrAppend(&kind, " ", report.culprit_part());
  }
  std::string out = absl::StrFormat("# Culprit: %s: %s\n", kind, report.culprit_reason());
  // The reason names the worst; every counter that moved, one line each.
  if (report.culprit_counters_size() > 1) {
    for (const v1::CounterFinding& finding : report.culprit_counters()) {
      absl::StrAppendFormat(&out, "#   counters: %s %s %s\n", finding.node_name(), finding.part(),
                            finding.what());
    }
  }
  return out;
}

}  // namespace

std::string AttributionLines(const v1::TestReport& printable) {
  std::string out = SlowestRankLine(printable) + CulpritLine(printable);
  // The judged figure is already the honest one (VALIDATION.md, "What a
  // node's ranks cannot change"): this says why it is below the table's.
  if (!printable.rank_times_finding().empty()) {
    absl::StrAppend(&out, "# Rank times disagree: ", printable.rank_times_finding(), "\n");
  }
  return out;
}

}  // namespace eb::ebctl
