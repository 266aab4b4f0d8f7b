#include "coordinator/history/sqlite_history.h"

#include <sqlite3.h>

#include <filesystem>
#include <optional>
#include <system_error>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/spec/bounded_text.h"
#include "common/spec/names.h"
#include "common/spec/wire_names.h"
#include "common/status/status_macros.h"
#include "coordinator/history/sqlite_statement.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;
namespace {

constexpr v1::TestState kTerminalStates[] = {v1::TEST_STATE_PASSED, v1::TEST_STATE_FAILED,
                                             v1::TEST_STATE_TIMED_OUT, v1::TEST_STATE_CANCELLED,
                                             v1::TEST_STATE_INTERRUPTED};

// "('passed', 'failed', ...)": the terminal states as the state column
// spells them (constants, so no quoting is needed).
std::string TerminalStateList() {
  std::vector<std::string> names;
  for (v1::TestState state : kTerminalStates) {
    names.push_back(absl::StrCat("'", StateColumnName(state), "'"));
  }
  return absl::StrCat("(", absl::StrJoin(names, ", "), ")");
}

// The collective's display name (common/spec/names.h), for people reading
// the table; nothing queries the column. Rows written before this held the
// lower-cased wire name ("all_to_all" where this writes "alltoall").
std::string CollectiveColumn(v1::Collective collective) { return spec::DisplayName(collective); }

// Node names in node order: the normalized spec lists them; a report that
// has only a rank map (or neither) still gets what it has.
std::string NodesColumn(const v1::TestReport& report) {
  std::vector<std::string> names(report.spec().node_names().begin(),
                                 report.spec().node_names().end());
  if (names.empty()) {
    for (const v1::RankAssignment& rank : report.ranks()) {
      if (names.empty() || names.back() != rank.node_name()) names.push_back(rank.node_name());
    }
  }
  return absl::StrJoin(names, ",");
}

absl::Status Serialize(const google::protobuf::Message& message, std::string* out) {
  // Fails only past protobuf's 2 GiB limit.
  if (!message.SerializeToString(out)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "test history: a report of ", message.ByteSizeLong(), " bytes is too large to store"));
  }
  return absl::OkStatus();
}

// What List shows for a row whose brief cannot be decoded.
v1::TestReport ReportFromColumns(const SqliteStatement& row) {
  v1::TestReport report;
  report.set_test_id(row.ColumnText(1));
  report.set_start_time_unix_ms(row.ColumnInt64(2));
  report.set_end_time_unix_ms(row.ColumnInt64(3));
  if (absl::StatusOr<v1::TestState> state =
          spec::ParseWireName<v1::TestState>(row.ColumnText(4), "state");
      state.ok()) {
    report.set_state(*state);
  }
  // The note survives the bound: the column is cut first.
  report.set_summary(
      absl::StrCat(spec::BoundedText(row.ColumnText(5), spec::kMaxStoredTextBytes - 64),
                   " [stored report unreadable]"));
  spec::BoundMessageText(report);
  return report;
}

}  // namespace

struct SqliteTestHistory::Statements {
  SqliteStatement upsert;
  SqliteStatement get;
  SqliteStatement list;
  SqliteStatement unfinished;
  SqliteStatement set_state;
  SqliteStatement prune;
};

SqliteTestHistory::SqliteTestHistory(std::string path, SqliteTestHistoryOptions options,
                                     sqlite3* db)
    : path_(std::move(path)), options_(options), db_(db) {}

SqliteTestHistory::~SqliteTestHistory() {
  absl::MutexLock lock(&mu_);
  // Statements first: sqlite3_close refuses a connection with live ones.
  statements_.reset();
  // The last connection to close checkpoints the WAL and removes it.
  sqlite3_close(db_);
}

absl::StatusOr<std::unique_ptr<SqliteTestHistory>> SqliteTestHistory::Open(
    const std::string& path, SqliteTestHistoryOptions options) {
  if (path.empty()) {
    return absl::InvalidArgumentError(
        "test history: empty database path (an empty --history-path keeps history in memory)");
  }
  // SQLite creates the file, never its directory; say which is missing
  // instead of its generic "unable to open database file".
  std::filesystem::path directory = std::filesystem::path(path).parent_path();
  if (directory.empty()) directory = ".";
  std::error_code error;
  const std::filesystem::file_status directory_status = std::filesystem::status(directory, error);
  std::string problem;
  if (directory_status.type() == std::filesystem::file_type::not_found) {
    problem = "does not exist";
  } else if (error) {
    problem = absl::StrCat("cannot be examined (", error.message(), ")");
  } else if (!std::filesystem::is_directory(directory_status)) {
    problem = "is not a directory";
  }
  if (!problem.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("test history ", path, ": directory ", directory.string(), " ", problem,
                     "; create it (the ebnccl package creates /var/lib/ebnccl) or pass another "
                     "--history-path"));
  }
  // An existing history that is not a regular file (a FIFO would block
  // SQLite's open forever, a device would be written to): refused by name.
  const std::filesystem::file_status file_status = std::filesystem::status(path, error);
  if (!error &&
      (std::filesystem::is_fifo(file_status) || std::filesystem::is_character_file(file_status) ||
       std::filesystem::is_block_file(file_status) || std::filesystem::is_socket(file_status))) {
    return absl::FailedPreconditionError(
        absl::StrCat("test history ", path,
                     ": not a regular file (a FIFO, device or socket); "
                     "pass another --history-path"));
  }

  sqlite3* db = nullptr;
  // NOMUTEX: this class serializes calls itself.
  const int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    absl::Status status = SqliteError(db, rc, path, "open");
    sqlite3_close(db);
    return status;
  }
  std::unique_ptr<SqliteTestHistory> history(new SqliteTestHistory(path, options, db));
  absl::MutexLock lock(&history->mu_);
  EB_RETURN_IF_ERROR(history->Configure());
  EB_RETURN_IF_ERROR(history->CreateOrCheckSchema());
  EB_RETURN_IF_ERROR(history->PrepareStatements());
  return history;
}

absl::Status SqliteTestHistory::Configure() {
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, static_cast<int>(absl::ToInt64Milliseconds(options_.busy_timeout)));
  // The first statement that reads the file: a file that is not a database
  // fails here with SQLITE_NOTADB. journal_mode answers with the mode in
  // effect, which stays "delete" where WAL is impossible (some network
  // file systems).
  EB_ASSIGN_OR_RETURN(SqliteStatement wal,
                      SqliteStatement::Prepare(db_, path_, "PRAGMA journal_mode=WAL"));
  EB_ASSIGN_OR_RETURN(bool has_row, wal.Step());
  const std::string mode = has_row ? absl::AsciiStrToLower(wal.ColumnText(0)) : "";
  if (mode != "wal") {
    return absl::FailedPreconditionError(
        absl::StrCat("test history ", path_, ": cannot use the WAL journal (journal mode is '",
                     mode, "'); put the database on a local file system"));
  }
  return SqliteExec(db_, path_, "PRAGMA synchronous=NORMAL");
}

template <typename Body>
absl::Status SqliteTestHistory::InTransaction(Body body) {
  // IMMEDIATE takes the write lock up front, so a busy database fails at
  // BEGIN (after busy_timeout) rather than half-way.
  EB_RETURN_IF_ERROR(SqliteExec(db_, path_, "BEGIN IMMEDIATE"));
  absl::Status status = body();
  if (status.ok()) status = SqliteExec(db_, path_, "COMMIT");
  if (!status.ok() && !sqlite3_get_autocommit(db_)) {
    // The first error is the one to report.
    (void)SqliteExec(db_, path_, "ROLLBACK");
  }
  return status;
}

absl::Status SqliteTestHistory::CreateOrCheckSchema() {
  return InTransaction([&]() -> absl::Status {
    EB_RETURN_IF_ERROR(SqliteExec(
        db_, path_, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"));
    EB_ASSIGN_OR_RETURN(
        SqliteStatement select,
        SqliteStatement::Prepare(db_, path_, "SELECT max(version) FROM schema_version"));
    EB_ASSIGN_OR_RETURN(bool has_row, select.Step());
    const int64_t version = has_row ? select.ColumnInt64(0) : 0;  // max() of nothing: NULL = 0.
    if (version > kSchemaVersion) {
      return absl::FailedPreconditionError(
          absl::StrCat("test history ", path_, ": written by a newer ebnccl (schema version ",
                       version, "; this coordinator reads up to ", kSchemaVersion, ")"));
    }
    if (version == kSchemaVersion) return absl::OkStatus();
    // Version 0: a new file. Later versions migrate from `version` here.
    EB_RETURN_IF_ERROR(SqliteExec(db_, path_,
                                  "CREATE TABLE tests ("
                                  "  test_id TEXT PRIMARY KEY NOT NULL,"
                                  "  start_time_ms INTEGER NOT NULL,"
                                  "  end_time_ms INTEGER NOT NULL,"
                                  "  state TEXT NOT NULL,"
                                  "  collective TEXT NOT NULL,"
                                  "  nodes TEXT NOT NULL,"
                                  "  summary TEXT NOT NULL,"
                                  "  brief BLOB NOT NULL,"
                                  "  report BLOB NOT NULL);"
                                  "CREATE INDEX tests_by_start_time"
                                  "  ON tests (start_time_ms DESC, test_id DESC);"));
    return SqliteExec(
        db_, path_,
        absl::StrCat("INSERT INTO schema_version (version) VALUES (", kSchemaVersion, ")"));
  });
}

absl::Status SqliteTestHistory::PrepareStatements() {
  const std::string terminal = TerminalStateList();
  EB_ASSIGN_OR_RETURN(
      SqliteStatement upsert,
      SqliteStatement::Prepare(
          db_, path_,
          "INSERT INTO tests (test_id, start_time_ms, end_time_ms, state, collective, nodes,"
          " summary, brief, report) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
          " ON CONFLICT (test_id) DO UPDATE SET start_time_ms = excluded.start_time_ms,"
          " end_time_ms = excluded.end_time_ms, state = excluded.state,"
          " collective = excluded.collective, nodes = excluded.nodes,"
          " summary = excluded.summary, brief = excluded.brief, report = excluded.report"));
  EB_ASSIGN_OR_RETURN(
      SqliteStatement get,
      SqliteStatement::Prepare(db_, path_,
                               "SELECT report, test_id, start_time_ms, end_time_ms, state,"
                               " summary FROM tests WHERE test_id = ?1"));
  EB_ASSIGN_OR_RETURN(
      SqliteStatement list,
      SqliteStatement::Prepare(db_, path_,
                               "SELECT brief, test_id, start_time_ms, end_time_ms, state,"
                               " summary FROM tests"
                               " ORDER BY start_time_ms DESC, test_id DESC LIMIT ?1"));
  EB_ASSIGN_OR_RETURN(
      SqliteStatement unfinished,
      SqliteStatement::Prepare(
          db_, path_,
          absl::StrCat("SELECT test_id, report FROM tests WHERE state NOT IN ", terminal)));
  EB_ASSIGN_OR_RETURN(
      SqliteStatement set_state,
      SqliteStatement::Prepare(db_, path_,
                               "UPDATE tests SET state = ?2, summary = ?3 WHERE test_id = ?1"));
  // Finished tests past the newest ?1 (by the index's order).
  EB_ASSIGN_OR_RETURN(
      SqliteStatement prune,
      SqliteStatement::Prepare(
          db_, path_,
          absl::StrCat("DELETE FROM tests WHERE state IN ", terminal,
                       " AND test_id IN (SELECT test_id FROM tests"
                       " ORDER BY start_time_ms DESC, test_id DESC LIMIT -1 OFFSET ?1)")));
  statements_ = std::make_unique<Statements>(Statements{std::move(upsert), std::move(get),
                                                        std::move(list), std::move(unfinished),
                                                        std::move(set_state), std::move(prune)});
  return absl::OkStatus();
}

absl::Status SqliteTestHistory::Upsert(const v1::TestReport& original) {
  // Free text bounded and valid UTF-8 before it is stored: one row that
  // protobuf cannot decode, or too large to send, broke every listing.
  std::optional<v1::TestReport> bounded;
  if (spec::MessageTextNeedsBounding(original)) {
    bounded = original;
    spec::BoundMessageText(*bounded);
  }
  const v1::TestReport& report = bounded ? *bounded : original;
  std::string blob;
  std::string brief;
  EB_RETURN_IF_ERROR(Serialize(report, &blob));
  EB_RETURN_IF_ERROR(Serialize(WithoutResults(report), &brief));
  SqliteStatement& upsert = statements_->upsert;
  absl::Cleanup reset = [&upsert] { upsert.Reset(); };
  EB_RETURN_IF_ERROR(upsert.BindText(1, report.test_id()));
  EB_RETURN_IF_ERROR(upsert.BindInt64(2, report.start_time_unix_ms()));
  EB_RETURN_IF_ERROR(upsert.BindInt64(3, report.end_time_unix_ms()));
  EB_RETURN_IF_ERROR(upsert.BindText(4, StateColumnName(report.state())));
  EB_RETURN_IF_ERROR(upsert.BindText(5, CollectiveColumn(report.spec().collective())));
  EB_RETURN_IF_ERROR(upsert.BindText(6, NodesColumn(report)));
  EB_RETURN_IF_ERROR(upsert.BindText(7, report.summary()));
  EB_RETURN_IF_ERROR(upsert.BindBlob(8, brief));
  EB_RETURN_IF_ERROR(upsert.BindBlob(9, blob));
  return upsert.Step().status();
}

absl::Status SqliteTestHistory::Prune() {
  if (options_.max_tests <= 0) return absl::OkStatus();
  SqliteStatement& prune = statements_->prune;
  absl::Cleanup reset = [&prune] { prune.Reset(); };
  EB_RETURN_IF_ERROR(prune.BindInt64(1, options_.max_tests));
  return prune.Step().status();
}

absl::Status SqliteTestHistory::Save(const v1::TestReport& report) {
  if (report.test_id().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("test history ", path_, ": a report without a test_id cannot be saved"));
  }
  absl::MutexLock lock(&mu_);
  return InTransaction([&]() -> absl::Status {
    EB_RETURN_IF_ERROR(Upsert(report));
    return Prune();
  });
}

absl::Status SqliteTestHistory::SaveAll(const std::vector<v1::TestReport>& reports) {
  for (const v1::TestReport& report : reports) {
    if (report.test_id().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("test history ", path_, ": a report without a test_id cannot be saved"));
    }
  }
  if (reports.empty()) return absl::OkStatus();
  absl::MutexLock lock(&mu_);
  return InTransaction([&]() -> absl::Status {
    for (const v1::TestReport& report : reports) EB_RETURN_IF_ERROR(Upsert(report));
    return Prune();
  });
}

absl::StatusOr<v1::TestReport> SqliteTestHistory::Get(const std::string& test_id) const {
  absl::MutexLock lock(&mu_);
  SqliteStatement& get = statements_->get;
  absl::Cleanup reset = [&get] { get.Reset(); };
  EB_RETURN_IF_ERROR(get.BindText(1, test_id));
  EB_ASSIGN_OR_RETURN(bool found, get.Step());
  if (!found) {
    return absl::NotFoundError(absl::StrCat("test_id: no test '", test_id, "' in the history"));
  }
  const absl::string_view blob = get.ColumnBlob(0);
  v1::TestReport report;
  if (!report.ParseFromArray(blob.data(), static_cast<int>(blob.size()))) {
    // Read defensively: the row is shown as broken, from its columns.
    spdlog::warn("test history {}: the stored report of test {} ({} bytes) cannot be decoded",
                 path_, spec::BoundedText(test_id, 256), blob.size());
    report = ReportFromColumns(get);
  }
  // Rows stored before free text was bounded (or edited by hand).
  spec::BoundMessageText(report);
  return report;
}

absl::StatusOr<std::vector<v1::TestReport>> SqliteTestHistory::List(int limit) const {
  absl::MutexLock lock(&mu_);
  SqliteStatement& list = statements_->list;
  absl::Cleanup reset = [&list] { list.Reset(); };
  EB_RETURN_IF_ERROR(list.BindInt64(1, limit > 0 ? limit : -1));  // LIMIT -1: no limit.
  std::vector<v1::TestReport> reports;
  while (true) {
    EB_ASSIGN_OR_RETURN(bool has_row, list.Step());
    if (!has_row) break;
    const absl::string_view brief = list.ColumnBlob(0);
    v1::TestReport& report = reports.emplace_back();
    if (!report.ParseFromArray(brief.data(), static_cast<int>(brief.size()))) {
      report = ReportFromColumns(list);
      spdlog::warn(
          "test history {}: the stored report of test {} cannot be decoded; listing "
          "its columns only",
          path_, report.test_id());
    }
    spec::BoundMessageText(report);
  }
  return reports;
}

absl::StatusOr<int> SqliteTestHistory::MarkInterrupted(const std::string& reason, int64_t now_ms) {
  absl::MutexLock lock(&mu_);
  int changed = 0;
  EB_RETURN_IF_ERROR(InTransaction([&]() -> absl::Status {
    // Read every unfinished row first: rows are rewritten below, which must
    // not happen under a running SELECT of the same table.
    std::vector<std::pair<std::string, std::string>> rows;  // test_id, report blob
    {
      SqliteStatement& unfinished = statements_->unfinished;
      absl::Cleanup reset = [&unfinished] { unfinished.Reset(); };
      while (true) {
        EB_ASSIGN_OR_RETURN(bool has_row, unfinished.Step());
        if (!has_row) break;
        rows.emplace_back(unfinished.ColumnText(0), std::string(unfinished.ColumnBlob(1)));
      }
    }
    for (const auto& [test_id, blob] : rows) {
      v1::TestReport report;
      if (report.ParseFromString(blob)) {
        // The report is authoritative: when its state is terminal after all
        // (a column edited by hand), rewriting the row fixes the column.
        if (MarkReportInterrupted(report, reason, now_ms)) ++changed;
        EB_RETURN_IF_ERROR(Upsert(report));
        continue;
      }
      spdlog::warn(
          "test history {}: the stored report of test {} cannot be decoded; marking "
          "only its state column interrupted",
          path_, test_id);
      SqliteStatement& set_state = statements_->set_state;
      absl::Cleanup reset = [&set_state] { set_state.Reset(); };
      EB_RETURN_IF_ERROR(set_state.BindText(1, test_id));
      EB_RETURN_IF_ERROR(set_state.BindText(2, StateColumnName(v1::TEST_STATE_INTERRUPTED)));
      EB_RETURN_IF_ERROR(set_state.BindText(3, absl::StrCat("interrupted: ", reason)));
      EB_RETURN_IF_ERROR(set_state.Step().status());
      ++changed;
    }
    return absl::OkStatus();
  }));
  return changed;
}

}  // namespace eb::coordinator
