#include "coordinator/validation/result_from_report.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/spec/failure_kinds.h"
#include "common/spec/judged_figures.h"
#include "coordinator/validation/graded_size.h"

namespace eb::validation {

namespace v1 = ebnccl::v1;

namespace {

using spec::FailureBlame;

std::string Message(const v1::TestReport& report) {
  return report.summary().empty() ? v1::TestState_Name(report.state()) : report.summary();
}

void AddOnce(std::vector<std::string>& names, const std::string& name) {
  if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) {
    names.push_back(name);
  }
}

// Every node of the test, in rank order.
std::vector<std::string> NodesOf(const v1::TestReport& report) {
  std::vector<std::string> nodes;
  for (const v1::RankAssignment& rank : report.ranks()) AddOnce(nodes, rank.node_name());
  return nodes;
}

// Whether every failure of a FAILED test is a measurement that failed a
// check (too slow, below --min-busbw) and something was measured: a row,
// or the calls of a size that could not finish.
bool OnlyMeasurementFailures(const v1::TestReport& report) {
  const bool measured =
      !report.results().empty() ||
      std::any_of(report.failures().begin(), report.failures().end(),
                  [](const v1::Failure& f) { return f.measured_busbw_gbps() > 0; });
  return measured && report.state() == v1::TEST_STATE_FAILED && !report.failures().empty() &&
         std::all_of(report.failures().begin(), report.failures().end(), [](const v1::Failure& f) {
           return spec::RowOf(f.kind()).blame == FailureBlame::kMeasurement;
         });
}

TestResult Measured(int64_t planned_id, const v1::TestReport& report) {
  // Per rail (split_rails): the largest size of each rail, as for the
  // whole test.
  std::vector<RailResult> rails;
  for (const v1::RailResult& rail : report.rails()) {
    if (rail.results().empty()) continue;
    const v1::SizeResult& last = *rail.results().rbegin();
    rails.push_back(RailResult{rail.rail(), spec::JudgedRowBusbw(last)});
  }
  TestResult result = TestResult::Completed(planned_id, LargestSizeBusbw(report), std::move(rails));
  std::vector<SizeBusbw> rows;
  for (const v1::SizeResult& row : report.results()) {
    rows.emplace_back(row.size_bytes(), spec::JudgedRowBusbw(row));
  }
  if (!rows.empty()) result.graded_bytes = report.results().rbegin()->size_bytes();
  result.plateau_bytes = PlateauBytes(std::move(rows));
  for (const v1::Failure& f : report.failures()) {
    if (f.kind() != v1::FAILURE_KIND_TOO_SLOW) continue;
    result.cut_short = true;
    // The calls done at the size that could not finish: the figure at the
    // size the test was meant to grade, not at the smaller ones before it.
    if (f.measured_busbw_gbps() > 0) result.busbw_gbps = f.measured_busbw_gbps();
  }
  if (result.cut_short) result.message = Message(report);
  return result;
}

// The lost nodes an infrastructure failure names (several agents may be
// lost): those nodes become untestable. Not for timeouts, whose ranks are
// victims as often as culprits, nor for internal errors.
std::vector<std::string> LostNodes(const v1::TestReport& report) {
  const v1::FailureKind kind = report.failures(0).kind();
  std::vector<std::string> nodes;
  if (kind != v1::FAILURE_KIND_NODE_LOST && kind != v1::FAILURE_KIND_LAUNCH_FAILED &&
      kind != v1::FAILURE_KIND_WORKER_REGISTRATION_TIMEOUT) {
    return nodes;
  }
  for (const v1::Failure& f : report.failures()) {
    if (f.kind() == kind) AddOnce(nodes, f.node_name());
  }
  return nodes;
}

}  // namespace

double LargestSizeBusbw(const v1::TestReport& report) {
  if (report.results().empty()) return 0;
  return spec::JudgedRowBusbw(*report.results().rbegin());
}

TestResult ResultFromReport(int64_t planned_id, const v1::TestReport& report) {
  if (report.state() == v1::TEST_STATE_PASSED || OnlyMeasurementFailures(report)) {
    return Measured(planned_id, report);
  }
  if (report.state() == v1::TEST_STATE_CANCELLED || report.failures().empty()) {
    return TestResult::InfraFailure(planned_id, {}, Message(report));
  }
  const v1::Failure& primary = report.failures(0);
  const bool has_rows = !report.results().empty();
  const std::string why = absl::StrCat(Message(report), ": ", primary.message());
  switch (spec::RowOf(primary.kind()).blame) {
    case FailureBlame::kEveryNode:
      // Nothing carried the data among these nodes: a network fault, never
      // "no information". Pair inference tells the path from a node.
      return TestResult::HardwareFailure(planned_id, NodesOf(report), why);
    case FailureBlame::kNamedNodeOnceMeasuring:
      // Before any row the communicator never came up: nothing says the
      // hardware is at fault. After rows, a rank stopped making progress.
      if (!has_rows) break;
      [[fallthrough]];
    case FailureBlame::kNamedNode:
      if (primary.node_name().empty()) break;
      return TestResult::HardwareFailure(planned_id, {primary.node_name()}, why);
    case FailureBlame::kMeasurement:  // with other failures, or no row measured
    case FailureBlame::kInfrastructure:
      break;
  }
  return TestResult::InfraFailure(planned_id, LostNodes(report), Message(report));
}

}  // namespace eb::validation
