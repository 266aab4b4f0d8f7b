#pragma once

// Records audit entries (coordinator/history/audit_history.h) from any
// thread: each entry is stamped with the time and appended on the executor,
// which owns the history. A failed append is logged, never fatal to the
// call it describes.

#include <string>

#include "absl/status/status.h"
#include "common/exec/executor.h"
#include "common/time/clock.h"
#include "coordinator/history/audit_history.h"

namespace eb::coordinator {

struct Caller;

class AuditLog {
 public:
  // `history` must outlive the log; it is used on `executor`.
  AuditLog(common::Executor& executor, common::Clock& clock, AuditHistory& history);

  // One decision: `caller` called `method` on `target` with `outcome`.
  void Record(const Caller& caller, const std::string& method, const std::string& target,
              const absl::Status& outcome);

  AuditHistory& history() { return history_; }

 private:
  common::Executor& executor_;
  common::Clock& clock_;
  AuditHistory& history_;
};

}  // namespace eb::coordinator
