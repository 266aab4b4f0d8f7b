#pragma once

// The coordinator's audit log (issue 10): every mutating call (RunTest,
// CancelTest, RunValidation, CancelValidation) and every agent
// registration, accepted or refused, with who, what, when and the outcome.
// Implementations: InMemoryAuditHistory (tests, `--history-path ''`) and
// SqliteAuditHistory (the `audit` table of the history file). Called on the
// executor only.

#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

// Each text column of an audit entry (identity, target, message, ...) is
// stored and listed bounded to this, as valid UTF-8
// (common/spec/bounded_text.h); AuditLog cuts targets to 512 bytes and
// messages to 1,024 before that.
inline constexpr size_t kMaxAuditFieldBytes = 2048;

class AuditHistory {
 public:
  virtual ~AuditHistory() = default;
  // Appends one entry; entries are never changed.
  virtual absl::Status Append(const ebnccl::v1::AuditEntry& entry) = 0;
  // At most `limit` entries (every one when <= 0), newest first.
  virtual absl::StatusOr<std::vector<ebnccl::v1::AuditEntry>> List(int limit) const = 0;
};

}  // namespace eb::coordinator
