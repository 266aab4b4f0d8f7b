#include "coordinator/validation/result_from_report.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace eb::validation {

namespace v1 = ebnccl::v1;

namespace {

bool IsInfraKind(v1::FailureKind kind, bool has_rows) {
  switch (kind) {
    case v1::FAILURE_KIND_NODE_LOST:
    case v1::FAILURE_KIND_LAUNCH_FAILED:
    case v1::FAILURE_KIND_WORKER_REGISTRATION_TIMEOUT:
    case v1::FAILURE_KIND_INTERRUPTED:
    case v1::FAILURE_KIND_INTERNAL:
    case v1::FAILURE_KIND_UNSPECIFIED:
      return true;
    case v1::FAILURE_KIND_TIMEOUT:
      // Before any row the communicator never came up: nothing says the
      // hardware is at fault. After rows, a rank stopped making progress.
      return !has_rows;
    default:
      return false;
  }
}

std::string Message(const v1::TestReport& report) {
  return report.summary().empty() ? v1::TestState_Name(report.state()) : report.summary();
}

}  // namespace

double LargestSizeBusbw(const v1::TestReport& report) {
  if (report.results().empty()) return 0;
  const v1::SizeResult& last = *report.results().rbegin();
  return (last.out_of_place().busbw_gbps() + last.in_place().busbw_gbps()) / 2;
}

TestResult ResultFromReport(int64_t planned_id, const v1::TestReport& report) {
  const bool only_min_busbw =
      report.state() == v1::TEST_STATE_FAILED && !report.failures().empty() &&
      std::all_of(report.failures().begin(), report.failures().end(), [](const v1::Failure& f) {
        return f.kind() == v1::FAILURE_KIND_BELOW_MIN_BUSBW;
      });
  if (report.state() == v1::TEST_STATE_PASSED || only_min_busbw) {
    // Per rail (split_rails): the largest size of each rail, as for the
    // whole test.
    std::vector<RailResult> rails;
    for (const v1::RailResult& rail : report.rails()) {
      if (rail.results().empty()) continue;
      const v1::SizeResult& last = *rail.results().rbegin();
      rails.push_back(RailResult{
          rail.rail(), (last.out_of_place().busbw_gbps() + last.in_place().busbw_gbps()) / 2});
    }
    return TestResult::Completed(planned_id, LargestSizeBusbw(report), std::move(rails));
  }
  if (report.state() == v1::TEST_STATE_CANCELLED || report.failures().empty()) {
    return TestResult::InfraFailure(planned_id, {}, Message(report));
  }
  const v1::Failure& primary = report.failures(0);
  const bool has_rows = !report.results().empty();
  if (IsInfraKind(primary.kind(), has_rows) || primary.node_name().empty()) {
    // Name every node the primary kind names (several agents may be lost):
    // those nodes become untestable. Not for timeouts, whose ranks are
    // victims as often as culprits, nor for internal errors.
    std::vector<std::string> nodes;
    if (primary.kind() == v1::FAILURE_KIND_NODE_LOST ||
        primary.kind() == v1::FAILURE_KIND_LAUNCH_FAILED ||
        primary.kind() == v1::FAILURE_KIND_WORKER_REGISTRATION_TIMEOUT) {
      for (const v1::Failure& f : report.failures()) {
        if (f.kind() != primary.kind() || f.node_name().empty()) continue;
        if (std::find(nodes.begin(), nodes.end(), f.node_name()) == nodes.end()) {
          nodes.push_back(f.node_name());
        }
      }
    }
    return TestResult::InfraFailure(planned_id, std::move(nodes), Message(report));
  }
  return TestResult::HardwareFailure(planned_id, {primary.node_name()},
                                     absl::StrCat(Message(report), ": ", primary.message()));
}

}  // namespace eb::validation
