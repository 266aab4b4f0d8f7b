#pragma once

// Thin RAII helpers over the SQLite C API for SqliteTestHistory: every
// SQLite error becomes an absl::Status that names the database file. Not
// thread-safe; the owner serializes calls.

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct sqlite3;
struct sqlite3_stmt;

namespace eb::coordinator {

// The status for SQLite result code `rc` of `operation` on the database at
// `path`: the message names the path, the operation, SQLite's message (from
// `db` when it is not null) and, for I/O errors, the OS error. Codes:
// DATA_LOSS (corrupt file, not a database), PERMISSION_DENIED (read-only
// file or directory, permission), UNAVAILABLE (cannot open, I/O error,
// locked by another process), RESOURCE_EXHAUSTED (disk full, value too
// big), INTERNAL (anything else: a bug).
absl::Status SqliteError(sqlite3* db, int rc, const std::string& path, absl::string_view operation);

// Opens the existing database file at `path` for the audit and validation
// tables, which the test history (SqliteTestHistory, which creates the file)
// shares: read-write, no SQLite mutex (each owner serializes its calls),
// extended result codes, and a 2 s wait for another connection's lock.
absl::StatusOr<sqlite3*> OpenSharedSqliteDatabase(const std::string& path);

// Runs `sql` (one or more statements, no results wanted).
absl::Status SqliteExec(sqlite3* db, const std::string& path, const std::string& sql);

// One prepared statement, finalized on destruction. Bind, Step until it
// returns false, then Reset before the next use.
class SqliteStatement {
 public:
  static absl::StatusOr<SqliteStatement> Prepare(sqlite3* db, const std::string& path,
                                                 const std::string& sql);
  SqliteStatement(SqliteStatement&&) noexcept = default;
  SqliteStatement& operator=(SqliteStatement&&) noexcept = default;

  // Parameters are 1-based, as in the SQL text (?1, ?2 ...). Text and blobs
  // are copied.
  absl::Status BindText(int index, const std::string& value);
  absl::Status BindInt64(int index, int64_t value);
  absl::Status BindBlob(int index, const std::string& value);

  // Runs one step: true when a row is available, false when done.
  absl::StatusOr<bool> Step();

  // Columns of the current row, 0-based. A blob or text view is valid until
  // the next Step or Reset.
  int64_t ColumnInt64(int index) const;
  std::string ColumnText(int index) const;
  absl::string_view ColumnBlob(int index) const;

  // Makes the statement ready to run again and clears its bindings.
  void Reset();

 private:
  struct Finalizer {
    void operator()(sqlite3_stmt* stmt) const;
  };
  SqliteStatement(sqlite3* db, std::string path, std::string sql, sqlite3_stmt* stmt);
  absl::Status BindResult(int rc, int index);

  sqlite3* db_;
  std::string path_;
  std::string sql_;
  std::unique_ptr<sqlite3_stmt, Finalizer> stmt_;
};

}  // namespace eb::coordinator
