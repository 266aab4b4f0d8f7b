#include "coordinator/history/validation_history.h"

#include <algorithm>

#include "common/spec/validation_states.h"

namespace eb::coordinator {

namespace v1 = ebnccl::v1;

bool IsTerminalValidationState(v1::ValidationState state) { return spec::RowOf(state).terminal; }

bool RecordsVerdicts(v1::ValidationState state) {
  return IsTerminalValidationState(state) && spec::RowOf(state).records_verdicts;
}

absl::StatusOr<int> MarkValidationsInterrupted(ValidationHistory& history,
                                               const std::string& reason, int64_t now_ms) {
  absl::StatusOr<std::vector<v1::ValidationReport>> listed = history.List(0);
  if (!listed.ok()) return listed.status();
  int marked = 0;
  for (const v1::ValidationReport& brief : *listed) {
    if (IsTerminalValidationState(brief.state())) continue;
    absl::StatusOr<v1::ValidationReport> report = history.Get(brief.validation_id());
    if (!report.ok()) return report.status();
    report->set_state(v1::VALIDATION_STATE_INTERRUPTED);
    if (report->end_time_unix_ms() == 0) report->set_end_time_unix_ms(now_ms);
    report->set_summary("interrupted: " + reason + "; " + report->summary());
    if (absl::Status saved = history.Save(*report); !saved.ok()) return saved;
    ++marked;
  }
  return marked;
}

v1::ValidationReport WithoutEvidence(const v1::ValidationReport& report) {
  v1::ValidationReport copy = report;
  for (v1::NodeVerdict& node : *copy.mutable_nodes()) node.clear_evidence();
  for (v1::PathVerdict& path : *copy.mutable_paths()) path.clear_evidence();
  return copy;
}

void SortNewestFirst(std::vector<ebnccl::v1::ValidationReport>& reports, int limit) {
  std::sort(reports.begin(), reports.end(), [](const auto& a, const auto& b) {
    if (a.start_time_unix_ms() != b.start_time_unix_ms()) {
      return a.start_time_unix_ms() > b.start_time_unix_ms();
    }
    return a.validation_id() > b.validation_id();
  });
  if (limit > 0 && static_cast<int>(reports.size()) > limit) reports.resize(limit);
}

}  // namespace eb::coordinator
