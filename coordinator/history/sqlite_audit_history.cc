#include "coordinator/history/sqlite_audit_history.h"

#include <sqlite3.h>

#include "common/spec/bounded_text.h"
#include "common/status/status_macros.h"
#include "coordinator/history/sqlite_statement.h"

namespace eb::coordinator {

namespace v1 = ebnccl::v1;

absl::StatusOr<std::unique_ptr<SqliteAuditHistory>> SqliteAuditHistory::Open(
    const std::string& path) {
  EB_ASSIGN_OR_RETURN(sqlite3 * db, OpenSharedSqliteDatabase(path));
  std::unique_ptr<SqliteAuditHistory> history(new SqliteAuditHistory(path, db));
  EB_RETURN_IF_ERROR(SqliteExec(db, path,
                                "CREATE TABLE IF NOT EXISTS audit ("
                                "seq INTEGER PRIMARY KEY AUTOINCREMENT, time_ms INTEGER, "
                                "identity TEXT, role TEXT, method TEXT, target TEXT, "
                                "outcome TEXT, message TEXT, peer TEXT)"));
  return history;
}

SqliteAuditHistory::~SqliteAuditHistory() { sqlite3_close(db_); }

absl::Status SqliteAuditHistory::Append(const v1::AuditEntry& entry) {
  EB_ASSIGN_OR_RETURN(
      SqliteStatement insert,
      SqliteStatement::Prepare(db_, path_,
                               "INSERT INTO audit (time_ms, identity, role, method, target, "
                               "outcome, message, peer) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"));
  // Every column bounded and valid UTF-8 (bounded_text.h): a target cut
  // mid-character made every later `ebctl audit` fail (P2-6.4).
  EB_RETURN_IF_ERROR(insert.BindInt64(1, entry.time_unix_ms()));
  EB_RETURN_IF_ERROR(insert.BindText(2, spec::BoundedText(entry.identity(), kMaxAuditFieldBytes)));
  EB_RETURN_IF_ERROR(insert.BindText(3, spec::BoundedText(entry.role(), kMaxAuditFieldBytes)));
  EB_RETURN_IF_ERROR(insert.BindText(4, spec::BoundedText(entry.method(), kMaxAuditFieldBytes)));
  EB_RETURN_IF_ERROR(insert.BindText(5, spec::BoundedText(entry.target(), kMaxAuditFieldBytes)));
  EB_RETURN_IF_ERROR(insert.BindText(6, spec::BoundedText(entry.outcome(), kMaxAuditFieldBytes)));
  EB_RETURN_IF_ERROR(insert.BindText(7, spec::BoundedText(entry.message(), kMaxAuditFieldBytes)));
  EB_RETURN_IF_ERROR(insert.BindText(8, spec::BoundedText(entry.peer(), kMaxAuditFieldBytes)));
  return insert.Step().status();
}

absl::StatusOr<std::vector<v1::AuditEntry>> SqliteAuditHistory::List(int limit) const {
  EB_ASSIGN_OR_RETURN(
      SqliteStatement select,
      SqliteStatement::Prepare(db_, path_,
                               "SELECT time_ms, identity, role, method, target, outcome, "
                               "message, peer FROM audit ORDER BY seq DESC LIMIT ?1"));
  EB_RETURN_IF_ERROR(select.BindInt64(1, limit > 0 ? limit : -1));
  std::vector<v1::AuditEntry> entries;
  while (true) {
    EB_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    v1::AuditEntry& entry = entries.emplace_back();
    entry.set_time_unix_ms(select.ColumnInt64(0));
    entry.set_identity(select.ColumnText(1));
    entry.set_role(select.ColumnText(2));
    entry.set_method(select.ColumnText(3));
    entry.set_target(select.ColumnText(4));
    entry.set_outcome(select.ColumnText(5));
    entry.set_message(select.ColumnText(6));
    entry.set_peer(select.ColumnText(7));
    // Read defensively: rows written before the bound, or by hand.
    spec::BoundMessageText(entry, kMaxAuditFieldBytes);
  }
  return entries;
}

}  // namespace eb::coordinator
