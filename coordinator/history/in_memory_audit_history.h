#pragma once

// AuditHistory kept in memory: unit tests and `--history-path ''`. Keeps the
// newest `max_entries` entries.

#include <deque>

#include "coordinator/history/audit_history.h"

namespace eb::coordinator {

class InMemoryAuditHistory final : public AuditHistory {
 public:
  explicit InMemoryAuditHistory(int max_entries = 100000) : max_entries_(max_entries) {}
  absl::Status Append(const ebnccl::v1::AuditEntry& entry) override;
  absl::StatusOr<std::vector<ebnccl::v1::AuditEntry>> List(int limit) const override;

 private:
  const int max_entries_;
  std::deque<ebnccl::v1::AuditEntry> entries_;  // oldest first
};

}  // namespace eb::coordinator
