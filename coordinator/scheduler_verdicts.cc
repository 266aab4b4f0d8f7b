#include "coordinator/scheduler_verdicts.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {
namespace {

// The report's fleet_below_expected findings as one line ("" when none):
// its verdicts were graded against a fleet median below the figure.
std::string FleetBelowExpected(const ebnccl::v1::ValidationReport& report) {
  std::string text;
  for (const ebnccl::v1::ValidationFinding& finding : report.findings()) {
    if (finding.kind() != ebnccl::v1::FINDING_KIND_FLEET_BELOW_EXPECTED) continue;
    absl::StrAppend(&text, text.empty() ? "" : "; ", finding.text());
  }
  return text;
}

}  // namespace

std::vector<scheduler::NodeVerdictRecord> SchedulerVerdicts(
    ValidationHistory& history, const ebnccl::v1::ValidationReport* finished) {
  std::vector<ebnccl::v1::ValidationReport> reports;
  if (absl::StatusOr<std::vector<ebnccl::v1::ValidationReport>> listed = history.List(1000);
      listed.ok()) {
    reports = *std::move(listed);
  } else {
    spdlog::error("scheduler: the validation history cannot be read: {}",
                  listed.status().ToString());
  }
  bool seen = finished == nullptr;
  for (const auto& report : reports)
    seen = seen || report.validation_id() == finished->validation_id();
  if (!seen) reports.push_back(*finished);
  std::vector<scheduler::NodeVerdictRecord> verdicts;
  for (const ebnccl::v1::ValidationReport& report : reports) {
    if (!RecordsVerdicts(report.state())) continue;
    const std::string below_expected = FleetBelowExpected(report);
    for (const ebnccl::v1::NodeVerdict& node : report.nodes()) {
      if (node.verdict() == ebnccl::v1::VERDICT_UNSPECIFIED ||
          node.confidence() == ebnccl::v1::CONFIDENCE_UNSPECIFIED) {
        continue;
      }
      scheduler::NodeVerdictRecord record;
      record.node = node.node_name();
      record.verdict = static_cast<validation::Verdict>(node.verdict());
      record.confidence = static_cast<validation::Confidence>(node.confidence());
      record.validation_id = report.validation_id();
      record.evidence = node.reason();
      record.fleet_below_expected = below_expected;
      if (!node.network_judged()) {
        record.rails.emplace();  // intra or preflight alone: no rail judged
      } else if (!node.judged_rails().empty()) {
        record.rails.emplace(node.judged_rails().begin(), node.judged_rails().end());
      }
      record.time = absl::FromUnixMillis(
          report.end_time_unix_ms() > 0 ? report.end_time_unix_ms() : report.start_time_unix_ms());
      verdicts.push_back(std::move(record));
    }
  }
  return verdicts;
}

}  // namespace eb::coordinator
