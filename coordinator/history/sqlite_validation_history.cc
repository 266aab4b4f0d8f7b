#include "coordinator/history/sqlite_validation_history.h"

#include <sqlite3.h>

#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/spec/bounded_text.h"
#include "common/spec/verdicts.h"
#include "common/spec/wire_names.h"
#include "common/spec/wire_upgrade.h"
#include "common/status/status_macros.h"
#include "coordinator/history/sqlite_statement.h"

namespace eb::coordinator {

namespace v1 = ebnccl::v1;

namespace {

std::string StateText(v1::ValidationState state) { return spec::WireName(state); }

// A stored report as this build reads it: words of older builds upgraded
// (spec::UpgradeStringEnums). False when it cannot be decoded.
bool DecodeReport(absl::string_view blob, v1::ValidationReport& report) {
  if (!report.ParseFromArray(blob.data(), static_cast<int>(blob.size()))) return false;
  spec::UpgradeStringEnums(report);
  // Rows stored before free text was bounded (or edited by hand).
  spec::BoundMessageText(report);
  return true;
}

// A row whose report cannot be decoded, from its columns (report,
// validation_id, start_time_ms, end_time_ms, summary): shown as broken, not
// hidden and not an error that hides the other rows (issue 32, item 2).
v1::ValidationReport ValidationFromColumns(const SqliteStatement& row) {
  v1::ValidationReport report;
  report.set_validation_id(row.ColumnText(1));
  report.set_start_time_unix_ms(row.ColumnInt64(2));
  report.set_end_time_unix_ms(row.ColumnInt64(3));
  // The note survives the bound: the column is cut first.
  report.set_summary(
      absl::StrCat(spec::BoundedText(row.ColumnText(4), spec::kMaxStoredTextBytes - 64),
                   " [stored report unreadable]"));
  spec::BoundMessageText(report);
  return report;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteValidationHistory>> SqliteValidationHistory::Open(
    const std::string& path) {
  EB_ASSIGN_OR_RETURN(sqlite3 * db, OpenSharedSqliteDatabase(path));
  std::unique_ptr<SqliteValidationHistory> history(new SqliteValidationHistory(path, db));
  EB_RETURN_IF_ERROR(SqliteExec(db, path,
                                "CREATE TABLE IF NOT EXISTS validations ("
                                "validation_id TEXT PRIMARY KEY, start_time_ms INTEGER, "
                                "end_time_ms INTEGER, state TEXT, nodes TEXT, test_ids TEXT, "
                                "summary TEXT, report BLOB NOT NULL);"
                                "CREATE TABLE IF NOT EXISTS node_verdicts ("
                                "node_name TEXT PRIMARY KEY, verdict TEXT, validation_id TEXT, "
                                "time_ms INTEGER, bad_count INTEGER NOT NULL DEFAULT 0)"));
  return history;
}

SqliteValidationHistory::~SqliteValidationHistory() { sqlite3_close(db_); }

absl::StatusOr<bool> SqliteValidationHistory::StoredTerminal(const std::string& id) const {
  EB_ASSIGN_OR_RETURN(SqliteStatement select,
                      SqliteStatement::Prepare(
                          db_, path_, "SELECT state FROM validations WHERE validation_id = ?1"));
  EB_RETURN_IF_ERROR(select.BindText(1, id));
  EB_ASSIGN_OR_RETURN(bool row, select.Step());
  return row && select.ColumnText(0) != "running";
}

absl::Status SqliteValidationHistory::Save(const v1::ValidationReport& original) {
  if (original.validation_id().empty()) return absl::InvalidArgumentError("validation_id: empty");
  // Free text bounded and valid UTF-8 before it is stored (bounded_text.h).
  std::optional<v1::ValidationReport> bounded;
  if (spec::MessageTextNeedsBounding(original)) {
    bounded = original;
    spec::BoundMessageText(*bounded);
  }
  const v1::ValidationReport& report = bounded ? *bounded : original;
  EB_ASSIGN_OR_RETURN(const bool was_terminal, StoredTerminal(report.validation_id()));
  std::vector<std::string> nodes;
  for (const v1::NodeVerdict& node : report.nodes()) nodes.push_back(node.node_name());
  std::vector<std::string> test_ids;
  for (const v1::ValidationRound& round : report.rounds()) {
    for (const v1::ValidationTest& test : round.tests()) {
      if (!test.test_id().empty()) test_ids.push_back(test.test_id());
    }
  }
  EB_ASSIGN_OR_RETURN(
      SqliteStatement upsert,
      SqliteStatement::Prepare(db_, path_,
                               "INSERT OR REPLACE INTO validations (validation_id, start_time_ms, "
                               "end_time_ms, state, nodes, test_ids, summary, report) VALUES "
                               "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"));
  EB_RETURN_IF_ERROR(upsert.BindText(1, report.validation_id()));
  EB_RETURN_IF_ERROR(upsert.BindInt64(2, report.start_time_unix_ms()));
  EB_RETURN_IF_ERROR(upsert.BindInt64(3, report.end_time_unix_ms()));
  EB_RETURN_IF_ERROR(upsert.BindText(4, StateText(report.state())));
  EB_RETURN_IF_ERROR(upsert.BindText(5, absl::StrJoin(nodes, ",")));
  EB_RETURN_IF_ERROR(upsert.BindText(6, absl::StrJoin(test_ids, ",")));
  EB_RETURN_IF_ERROR(upsert.BindText(7, report.summary()));
  EB_RETURN_IF_ERROR(upsert.BindBlob(8, report.SerializeAsString()));
  EB_ASSIGN_OR_RETURN(bool unused, upsert.Step());
  (void)unused;
  // Each node's verdict once per finished validation.
  if (!RecordsVerdicts(report.state()) || was_terminal) return absl::OkStatus();
  EB_ASSIGN_OR_RETURN(
      SqliteStatement verdict,
      SqliteStatement::Prepare(
          db_, path_,
          "INSERT INTO node_verdicts (node_name, verdict, validation_id, time_ms, bad_count) "
          "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(node_name) DO UPDATE SET verdict = ?2, "
          "validation_id = ?3, time_ms = ?4, bad_count = bad_count + ?5"));
  for (const v1::NodeVerdict& node : report.nodes()) {
    EB_RETURN_IF_ERROR(verdict.BindText(1, node.node_name()));
    EB_RETURN_IF_ERROR(verdict.BindText(2, spec::WireName(node.verdict())));
    EB_RETURN_IF_ERROR(verdict.BindText(3, report.validation_id()));
    EB_RETURN_IF_ERROR(verdict.BindInt64(4, report.end_time_unix_ms()));
    EB_RETURN_IF_ERROR(verdict.BindInt64(5, spec::IsBadVerdict(node.verdict()) ? 1 : 0));
    EB_ASSIGN_OR_RETURN(bool done, verdict.Step());
    (void)done;
    verdict.Reset();
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::ValidationReport> SqliteValidationHistory::Get(const std::string& id) const {
  EB_ASSIGN_OR_RETURN(
      SqliteStatement select,
      SqliteStatement::Prepare(db_, path_,
                               "SELECT report, validation_id, start_time_ms, end_time_ms, summary "
                               "FROM validations WHERE validation_id = ?1"));
  EB_RETURN_IF_ERROR(select.BindText(1, id));
  EB_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return absl::NotFoundError(absl::StrCat("validation '", id, "' is not known"));
  v1::ValidationReport report;
  const absl::string_view blob = select.ColumnBlob(0);
  if (!DecodeReport(blob, report)) return ValidationFromColumns(select);
  return report;
}

absl::StatusOr<std::vector<v1::ValidationReport>> SqliteValidationHistory::List(int limit) const {
  EB_ASSIGN_OR_RETURN(
      SqliteStatement select,
      SqliteStatement::Prepare(db_, path_,
                               "SELECT report, validation_id, start_time_ms, end_time_ms, "
                               "summary FROM validations ORDER BY start_time_ms DESC, "
                               "validation_id DESC LIMIT ?1"));
  EB_RETURN_IF_ERROR(select.BindInt64(1, limit > 0 ? limit : -1));
  std::vector<v1::ValidationReport> out;
  for (;;) {
    EB_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    v1::ValidationReport report;
    const absl::string_view blob = select.ColumnBlob(0);
    if (!DecodeReport(blob, report)) {
      out.push_back(ValidationFromColumns(select));
      continue;
    }
    out.push_back(WithoutEvidence(report));
  }
  return out;
}

absl::StatusOr<std::vector<NodeVerdictRecord>> SqliteValidationHistory::LastVerdicts() const {
  EB_ASSIGN_OR_RETURN(SqliteStatement select,
                      SqliteStatement::Prepare(db_, path_,
                                               "SELECT node_name, verdict, validation_id, "
                                               "time_ms, bad_count FROM node_verdicts "
                                               "ORDER BY node_name"));
  std::vector<NodeVerdictRecord> out;
  for (;;) {
    EB_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    // The column holds the verdict's display name; a word this build does
    // not know reads as unspecified.
    const absl::StatusOr<v1::Verdict> verdict =
        spec::ParseWireName<v1::Verdict>(select.ColumnText(1), "verdict");
    out.push_back(NodeVerdictRecord{
        select.ColumnText(0), verdict.ok() ? *verdict : v1::VERDICT_UNSPECIFIED,
        select.ColumnText(2), select.ColumnInt64(3), static_cast<int>(select.ColumnInt64(4))});
  }
  return out;
}

}  // namespace eb::coordinator
