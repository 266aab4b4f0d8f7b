#pragma once

// TestHistory in an embedded SQLite database (one file, by default
// /var/lib/ebnccl/history.db), so that `ebctl tests` / `ebctl show` see past
// tests after a coordinator restart.
//
// The file: WAL journal (readers such as `sqlite3 history.db` never block
// the coordinator), synchronous=NORMAL (a coordinator crash loses nothing;
// a power cut may lose the last saves but never corrupts the file), and
//   schema_version(version)                      -- one row, kSchemaVersion
//   tests(test_id TEXT PRIMARY KEY, start_time_ms, end_time_ms,
//         state TEXT,        -- StateColumnName(): "running", "passed" ...
//         collective TEXT,   -- "all_reduce" ...
//         nodes TEXT,        -- node names, comma-separated, in node order
//         summary TEXT,
//         brief BLOB,        -- the TestReport without per-size results (List)
//         report BLOB)       -- the whole serialized TestReport (Get)
//   index tests_by_start_time(start_time_ms DESC, test_id DESC)
// The scalar columns are for people and scripts querying the file; the
// coordinator reads only the blobs.
//
// Errors name the file (see SqliteError for the codes). Thread-safe: one
// mutex serializes every call (the coordinator calls from its executor).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "coordinator/history/history_store.h"

struct sqlite3;

namespace eb::coordinator {

struct SqliteTestHistoryOptions {
  // Keep at most this many tests when > 0: each Save drops the oldest
  // finished tests beyond it (unfinished ones are never dropped). 0 keeps
  // everything.
  int max_tests = 0;
  // How long a call waits for a lock held by another process (a reader's
  // checkpoint, a `sqlite3` shell) before failing with UNAVAILABLE.
  absl::Duration busy_timeout = absl::Seconds(2);
};

class SqliteTestHistory final : public TestHistory {
 public:
  // Version of the layout above, stored in schema_version.
  static constexpr int kSchemaVersion = 1;

  // Opens the database at `path`, creating the file (never its directory:
  // the package and the unit's StateDirectory= create /var/lib/ebnccl) and
  // the tables when missing. INVALID_ARGUMENT for an empty path;
  // FAILED_PRECONDITION when the directory is missing or the file was
  // written by a newer ebnccl (higher schema version); DATA_LOSS for a file
  // that is not a database or is corrupt; UNAVAILABLE when it cannot be
  // opened or is locked; PERMISSION_DENIED when it cannot be written. Every
  // message names `path`.
  static absl::StatusOr<std::unique_ptr<SqliteTestHistory>> Open(
      const std::string& path, SqliteTestHistoryOptions options = {});
  ~SqliteTestHistory() override;

  const std::string& path() const { return path_; }

  absl::Status Save(const ebnccl::v1::TestReport& report) override;
  // In one transaction, pruned once: a round's hundreds of verdicts cost
  // one commit. INVALID_ARGUMENT, and nothing saved, when a report has no
  // test_id.
  absl::Status SaveAll(const std::vector<ebnccl::v1::TestReport>& reports) override;
  // A stored report that cannot be decoded is DATA_LOSS (naming the test).
  absl::StatusOr<ebnccl::v1::TestReport> Get(const std::string& test_id) const override;
  // A row whose brief cannot be decoded is listed from its columns alone
  // (id, times, state, summary marked unreadable) and logged, so one bad
  // row does not hide the rest.
  absl::StatusOr<std::vector<ebnccl::v1::TestReport>> List(int limit) const override;
  // In one transaction. A non-terminal row whose report cannot be decoded
  // gets state "interrupted" in its column only (and is counted).
  absl::StatusOr<int> MarkInterrupted(const std::string& reason, int64_t now_ms) override;

 private:
  struct Statements;

  SqliteTestHistory(std::string path, SqliteTestHistoryOptions options, sqlite3* db);
  absl::Status Configure() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CreateOrCheckSchema() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status PrepareStatements() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Inserts or replaces one row (no transaction of its own).
  absl::Status Upsert(const ebnccl::v1::TestReport& report) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Prune() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs `body` between BEGIN IMMEDIATE and COMMIT; rolls back on error.
  template <typename Body>
  absl::Status InTransaction(Body body) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string path_;
  const SqliteTestHistoryOptions options_;
  mutable absl::Mutex mu_;
  sqlite3* db_ ABSL_GUARDED_BY(mu_);
  // Prepared once, finalized before db_ is closed.
  std::unique_ptr<Statements> statements_ ABSL_GUARDED_BY(mu_);
};

}  // namespace eb::coordinator
