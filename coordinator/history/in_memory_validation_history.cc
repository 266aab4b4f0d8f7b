#include "coordinator/history/in_memory_validation_history.h"

#include <algorithm>

#include "common/spec/verdicts.h"

namespace eb::coordinator {

namespace v1 = ebnccl::v1;

absl::Status InMemoryValidationHistory::Save(const v1::ValidationReport& report) {
  if (report.validation_id().empty()) {
    return absl::InvalidArgumentError("validation_id: empty");
  }
  auto [it, inserted] = reports_.try_emplace(report.validation_id(), report);
  const bool was_terminal = !inserted && IsTerminalValidationState(it->second.state());
  it->second = report;
  if (!RecordsVerdicts(report.state()) || was_terminal) return absl::OkStatus();
  for (const v1::NodeVerdict& node : report.nodes()) {
    NodeVerdictRecord& record = verdicts_[node.node_name()];
    record.node_name = node.node_name();
    record.verdict = node.verdict();
    record.validation_id = report.validation_id();
    record.time_unix_ms = report.end_time_unix_ms();
    if (spec::IsBadVerdict(node.verdict())) ++record.bad_count;
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::ValidationReport> InMemoryValidationHistory::Get(const std::string& id) const {
  auto it = reports_.find(id);
  if (it == reports_.end()) return absl::NotFoundError("validation '" + id + "' is not known");
  return it->second;
}

absl::StatusOr<std::vector<v1::ValidationReport>> InMemoryValidationHistory::List(int limit) const {
  std::vector<v1::ValidationReport> out;
  for (const auto& [id, report] : reports_) out.push_back(WithoutEvidence(report));
  SortNewestFirst(out, limit);
  return out;
}

absl::StatusOr<std::vector<NodeVerdictRecord>> InMemoryValidationHistory::LastVerdicts() const {
  std::vector<NodeVerdictRecord> out;
  for (const auto& [node, record] : verdicts_) out.push_back(record);
  return out;
}

}  // namespace eb::coordinator
