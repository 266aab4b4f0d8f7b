#include "coordinator/history/in_memory_audit_history.h"

namespace eb::coordinator {

absl::Status InMemoryAuditHistory::Append(const ebnccl::v1::AuditEntry& entry) {
  entries_.push_back(entry);
  while (static_cast<int>(entries_.size()) > max_entries_) entries_.pop_front();
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ebnccl::v1::AuditEntry>> InMemoryAuditHistory::List(int limit) const {
  std::vector<ebnccl::v1::AuditEntry> newest_first(entries_.rbegin(), entries_.rend());
  if (limit > 0 && static_cast<int>(newest_first.size()) > limit) newest_first.resize(limit);
  return newest_first;
}

}  // namespace eb::coordinator
