#include "coordinator/history/in_memory_history.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/spec/bounded_text.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

InMemoryTestHistory::InMemoryTestHistory(int max_tests) : max_tests_(max_tests) {}

absl::Status InMemoryTestHistory::Save(const v1::TestReport& report) {
  if (report.test_id().empty()) {
    return absl::InvalidArgumentError("test history: a report without a test_id cannot be saved");
  }
  absl::MutexLock lock(&mu_);
  v1::TestReport& stored = reports_[report.test_id()] = report;
  // Bounded as the SQLite history bounds it (common/spec/bounded_text.h).
  spec::BoundMessageText(stored);
  Prune();
  return absl::OkStatus();
}

absl::StatusOr<v1::TestReport> InMemoryTestHistory::Get(const std::string& test_id) const {
  absl::MutexLock lock(&mu_);
  auto it = reports_.find(test_id);
  if (it == reports_.end()) {
    return absl::NotFoundError(absl::StrCat("test_id: no test '", test_id, "' in the history"));
  }
  return it->second;
}

absl::StatusOr<std::vector<v1::TestReport>> InMemoryTestHistory::List(int limit) const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> ids = OrderedIds();
  if (limit > 0 && static_cast<int>(ids.size()) > limit) ids.resize(limit);
  std::vector<v1::TestReport> result;
  result.reserve(ids.size());
  for (const std::string& id : ids) result.push_back(WithoutResults(reports_.at(id)));
  return result;
}

absl::StatusOr<int> InMemoryTestHistory::MarkInterrupted(const std::string& reason,
                                                         int64_t now_ms) {
  absl::MutexLock lock(&mu_);
  int changed = 0;
  for (auto& [id, report] : reports_) {
    if (MarkReportInterrupted(report, reason, now_ms)) ++changed;
  }
  return changed;
}

std::vector<std::string> InMemoryTestHistory::OrderedIds() const {
  std::vector<const v1::TestReport*> reports;
  reports.reserve(reports_.size());
  for (const auto& [id, report] : reports_) reports.push_back(&report);
  // The same order as SqliteTestHistory's index: start time, then id.
  std::sort(reports.begin(), reports.end(),
            [](const v1::TestReport* a, const v1::TestReport* b) { return ListedBefore(*a, *b); });
  std::vector<std::string> ids;
  ids.reserve(reports.size());
  for (const v1::TestReport* report : reports) ids.push_back(report->test_id());
  return ids;
}

void InMemoryTestHistory::Prune() {
  if (max_tests_ <= 0 || static_cast<int>(reports_.size()) <= max_tests_) return;
  const std::vector<std::string> ids = OrderedIds();
  for (size_t i = static_cast<size_t>(max_tests_); i < ids.size(); ++i) {
    auto it = reports_.find(ids[i]);
    if (IsTerminalState(it->second.state())) reports_.erase(it);
  }
}

}  // namespace eb::coordinator
