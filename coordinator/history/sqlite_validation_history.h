#pragma once

// ValidationHistory in the coordinator's SQLite history file (beside the
// tests table of SqliteTestHistory, through a connection of its own; WAL
// lets both work on one file), so that `ebctl validations`, `show v-...`
// and the repeat-offender marks of `ebctl nodes` survive a restart:
//   validations(validation_id TEXT PRIMARY KEY, start_time_ms, end_time_ms,
//               state TEXT,     -- "running", "done", "cancelled" ...
//               nodes TEXT,     -- node names, comma-separated
//               test_ids TEXT,  -- the tests it ran, comma-separated
//               summary TEXT,
//               report BLOB)    -- the serialized ValidationReport
//   node_verdicts(node_name TEXT PRIMARY KEY, verdict TEXT,
//                 validation_id TEXT, time_ms INTEGER, bad_count INTEGER)
// Verdicts of INTERRUPTED validations are not recorded (RecordsVerdicts).
// Open it after SqliteTestHistory::Open, which checks the directory and
// the file. Called on the executor only.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/history/validation_history.h"

struct sqlite3;

namespace eb::coordinator {

class SqliteValidationHistory final : public ValidationHistory {
 public:
  // Opens `path` and creates the tables when missing. Errors name the file.
  static absl::StatusOr<std::unique_ptr<SqliteValidationHistory>> Open(const std::string& path);
  ~SqliteValidationHistory() override;

  absl::Status Save(const ebnccl::v1::ValidationReport& report) override;
  absl::StatusOr<ebnccl::v1::ValidationReport> Get(const std::string& id) const override;
  absl::StatusOr<std::vector<ebnccl::v1::ValidationReport>> List(int limit) const override;
  absl::StatusOr<std::vector<NodeVerdictRecord>> LastVerdicts() const override;

 private:
  SqliteValidationHistory(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}
  absl::StatusOr<bool> StoredTerminal(const std::string& id) const;

  const std::string path_;
  sqlite3* db_;
};

}  // namespace eb::coordinator
