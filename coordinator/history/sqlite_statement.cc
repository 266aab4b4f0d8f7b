#include "coordinator/history/sqlite_statement.h"

#include <sqlite3.h>

#include <system_error>

#include "absl/strings/str_cat.h"

namespace eb::coordinator {
namespace {

absl::StatusCode CodeFor(int rc) {
  switch (rc & 0xff) {  // The primary code of an extended result code.
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return absl::StatusCode::kDataLoss;
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_AUTH:
      return absl::StatusCode::kPermissionDenied;
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_PROTOCOL:
      return absl::StatusCode::kUnavailable;
    case SQLITE_FULL:
    case SQLITE_TOOBIG:
    case SQLITE_NOMEM:
      return absl::StatusCode::kResourceExhausted;
    default:
      return absl::StatusCode::kInternal;
  }
}

// Whether the OS error behind `rc` helps the reader (sqlite3_system_errno
// keeps the last one, which is stale after non-I/O errors).
bool HasOsCause(int rc) {
  switch (rc & 0xff) {
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_FULL:
      return true;
    default:
      return false;
  }
}

}  // namespace

absl::Status SqliteError(sqlite3* db, int rc, const std::string& path,
                         absl::string_view operation) {
  // sqlite3_errmsg describes the connection's last error, which is `rc`
  // when called right after the failing call; without a connection only the
  // generic text of the code is known.
  std::string message =
      absl::StrCat("test history ", path, ": ", operation, ": ",
                   db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc), " (SQLite code ", rc);
  if (db != nullptr && HasOsCause(rc)) {
    if (const int os_error = sqlite3_system_errno(db); os_error != 0) {
      absl::StrAppend(&message, ", errno ", os_error, ": ",
                      std::error_code(os_error, std::generic_category()).message());
    }
  }
  absl::StrAppend(&message, ")");
  return absl::Status(CodeFor(rc), message);
}

absl::StatusOr<sqlite3*> OpenSharedSqliteDatabase(const std::string& path) {
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    absl::Status status = SqliteError(db, rc, path, "open");
    sqlite3_close(db);
    return status;
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, 2000);
  return db;
}

absl::Status SqliteExec(sqlite3* db, const std::string& path, const std::string& sql) {
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db, rc, path, sql);
  return absl::OkStatus();
}

void SqliteStatement::Finalizer::operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }

SqliteStatement::SqliteStatement(sqlite3* db, std::string path, std::string sql, sqlite3_stmt* stmt)
    : db_(db), path_(std::move(path)), sql_(std::move(sql)), stmt_(stmt) {}

absl::StatusOr<SqliteStatement> SqliteStatement::Prepare(sqlite3* db, const std::string& path,
                                                         const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  // SQLITE_PREPARE_PERSISTENT: these statements live as long as the
  // connection and run many times.
  const int rc = sqlite3_prepare_v3(db, sql.c_str(), static_cast<int>(sql.size()) + 1,
                                    SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return SqliteError(db, rc, path, absl::StrCat("prepare \"", sql, "\""));
  }
  return SqliteStatement(db, path, sql, stmt);
}

absl::Status SqliteStatement::BindResult(int rc, int index) {
  if (rc == SQLITE_OK) return absl::OkStatus();
  return SqliteError(db_, rc, path_, absl::StrCat("bind ?", index, " of \"", sql_, "\""));
}

absl::Status SqliteStatement::BindText(int index, const std::string& value) {
  return BindResult(sqlite3_bind_text64(stmt_.get(), index, value.data(), value.size(),
                                        SQLITE_TRANSIENT, SQLITE_UTF8),
                    index);
}

absl::Status SqliteStatement::BindInt64(int index, int64_t value) {
  return BindResult(sqlite3_bind_int64(stmt_.get(), index, value), index);
}

absl::Status SqliteStatement::BindBlob(int index, const std::string& value) {
  return BindResult(
      sqlite3_bind_blob64(stmt_.get(), index, value.data(), value.size(), SQLITE_TRANSIENT), index);
}

absl::StatusOr<bool> SqliteStatement::Step() {
  const int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(db_, rc, path_, absl::StrCat("run \"", sql_, "\""));
}

int64_t SqliteStatement::ColumnInt64(int index) const {
  return sqlite3_column_int64(stmt_.get(), index);
}

std::string SqliteStatement::ColumnText(int index) const {
  const unsigned char* text = sqlite3_column_text(stmt_.get(), index);
  if (text == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_.get(), index)));
}

absl::string_view SqliteStatement::ColumnBlob(int index) const {
  // sqlite3_column_blob first, then the size: the documented order.
  const void* data = sqlite3_column_blob(stmt_.get(), index);
  if (data == nullptr) return {};
  return absl::string_view(static_cast<const char*>(data),
                           static_cast<size_t>(sqlite3_column_bytes(stmt_.get(), index)));
}

void SqliteStatement::Reset() {
  // The error sqlite3_reset repeats is the one Step already returned.
  sqlite3_reset(stmt_.get());
  sqlite3_clear_bindings(stmt_.get());
}

}  // namespace eb::coordinator
