#include "coordinator/history/in_memory_audit_history.h"

#include "common/spec/bounded_text.h"

namespace eb::coordinator {

absl::Status InMemoryAuditHistory::Append(const ebnccl::v1::AuditEntry& entry) {
  // Bounded as the SQLite history bounds it (audit_history.h).
  entries_.push_back(entry);
  spec::BoundMessageText(entries_.back(), kMaxAuditFieldBytes);
  while (static_cast<int>(entries_.size()) > max_entries_) entries_.pop_front();
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ebnccl::v1::AuditEntry>> InMemoryAuditHistory::List(int limit) const {
  std::vector<ebnccl::v1::AuditEntry> newest_first(entries_.rbegin(), entries_.rend());
  if (limit > 0 && static_cast<int>(newest_first.size()) > limit) newest_first.resize(limit);
  return newest_first;
}

}  // namespace eb::coordinator
