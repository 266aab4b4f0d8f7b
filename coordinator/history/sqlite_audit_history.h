#pragma once

// AuditHistory in the coordinator's SQLite history file (a connection of
// its own beside the tests' and validations'), so that the audit log
// survives restarts:
//   audit(seq INTEGER PRIMARY KEY AUTOINCREMENT, time_ms INTEGER,
//         identity TEXT, role TEXT, method TEXT, target TEXT,
//         outcome TEXT, message TEXT, peer TEXT)
// Open it after SqliteTestHistory::Open, which checks the directory and the
// file. Called on the executor only.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/history/audit_history.h"

struct sqlite3;

namespace eb::coordinator {

class SqliteAuditHistory final : public AuditHistory {
 public:
  // Opens `path` and creates the table when missing. Errors name the file.
  static absl::StatusOr<std::unique_ptr<SqliteAuditHistory>> Open(const std::string& path);
  ~SqliteAuditHistory() override;

  absl::Status Append(const ebnccl::v1::AuditEntry& entry) override;
  absl::StatusOr<std::vector<ebnccl::v1::AuditEntry>> List(int limit) const override;

 private:
  SqliteAuditHistory(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}

  const std::string path_;
  sqlite3* db_;
};

}  // namespace eb::coordinator
