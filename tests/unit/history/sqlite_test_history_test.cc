// SqliteTestHistory's file: survival across close and reopen, the layout
// others may query, errors that name the path, and large reports.

#include "coordinator/history/sqlite_history.h"

#include <sqlite3.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/unit/history/history_test_util.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;
using google::protobuf::util::MessageDifferencer;
using test::MakeReport;
using test::TempDir;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

std::unique_ptr<SqliteTestHistory> OpenOrDie(const std::string& path) {
  auto history = SqliteTestHistory::Open(path);
  EXPECT_TRUE(history.ok()) << history.status();
  return history.ok() ? *std::move(history) : nullptr;
}

// Runs `sql` on the file through a separate connection, as an operator's
// `sqlite3` shell would; returns the first column of every row.
std::vector<std::string> Query(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::vector<std::string> rows;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(stmt, 0);
    rows.emplace_back(text != nullptr ? reinterpret_cast<const char*>(text) : "NULL");
  }
  EXPECT_EQ(rc, SQLITE_DONE) << sqlite3_errmsg(db);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

TEST(SqliteTestHistoryTest, SurvivesCloseAndReopen) {
  TempDir dir;
  const std::string path = dir.File("history.db");
  const v1::TestReport passed = MakeReport("t-1", 1000, v1::TEST_STATE_PASSED);
  const v1::TestReport running = MakeReport("t-2", 2000, v1::TEST_STATE_RUNNING);
  {
    auto history = OpenOrDie(path);
    ASSERT_NE(history, nullptr);
    ASSERT_TRUE(history->Save(passed).ok());
    ASSERT_TRUE(history->Save(running).ok());
  }
  // A restarted coordinator: same file, new process state.
  auto history = OpenOrDie(path);
  ASSERT_NE(history, nullptr);
  auto listed = history->List(10);
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_THAT(*listed, SizeIs(2));
  EXPECT_EQ((*listed)[0].test_id(), "t-2");
  EXPECT_EQ((*listed)[1].test_id(), "t-1");
  auto stored = history->Get("t-1");
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE(MessageDifferencer::Equals(*stored, passed));

  auto changed = history->MarkInterrupted("coordinator restarted", 5000);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(*changed, 1);
  history.reset();
  history = OpenOrDie(path);
  ASSERT_NE(history, nullptr);
  stored = history->Get("t-2");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->state(), v1::TEST_STATE_INTERRUPTED);
}

TEST(SqliteTestHistoryTest, FileHasTheDocumentedLayout) {
  TempDir dir;
  const std::string path = dir.File("history.db");
  {
    auto history = OpenOrDie(path);
    ASSERT_NE(history, nullptr);
    ASSERT_TRUE(history->Save(MakeReport("t-1", 1234, v1::TEST_STATE_FAILED, 3, 2)).ok());
    // While open the journal is WAL.
    EXPECT_THAT(Query(path, "PRAGMA journal_mode"), ElementsAre("wal"));
  }
  EXPECT_THAT(Query(path, "SELECT version FROM schema_version"),
              ElementsAre(std::to_string(SqliteTestHistory::kSchemaVersion)));
  EXPECT_THAT(Query(path,
                    "SELECT test_id || '|' || start_time_ms || '|' || end_time_ms || '|' ||"
                    " state || '|' || collective || '|' || nodes || '|' || summary"
                    " FROM tests"),
              ElementsAre("t-1|1234|2234|failed|all_reduce|node0,node1,node2|summary of t-1"));
  EXPECT_THAT(Query(path,
                    "SELECT name FROM sqlite_master WHERE type = 'index' AND"
                    " tbl_name = 'tests' AND name NOT LIKE 'sqlite_autoindex%'"),
              ElementsAre("tests_by_start_time"));
  // The report column is the serialized proto, readable by any tool.
  EXPECT_THAT(Query(path, "SELECT length(report) > length(brief) FROM tests"), ElementsAre("1"));
}

TEST(SqliteTestHistoryTest, LargeReportRoundTrips) {
  TempDir dir;
  auto history = OpenOrDie(dir.File("history.db"));
  ASSERT_NE(history, nullptr);
  // 1000 ranks (125 nodes x 8) x 30 sizes, every rank's time per size.
  const v1::TestReport report = MakeReport("t-big", 1000, v1::TEST_STATE_PASSED, 125, 8, 30);
  ASSERT_GT(report.ByteSizeLong(), 400u * 1000u);
  ASSERT_TRUE(history->Save(report).ok());
  auto stored = history->Get("t-big");
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_TRUE(MessageDifferencer::Equals(*stored, report));
  EXPECT_THAT(stored->ranks(), SizeIs(1000));
  EXPECT_THAT(stored->results(), SizeIs(30));
  EXPECT_THAT(stored->results(29).in_place().rank_time_us(), SizeIs(1000));
  auto listed = history->List(1);
  ASSERT_TRUE(listed.ok());
  ASSERT_THAT(*listed, SizeIs(1));
  EXPECT_THAT(listed->front().ranks(), SizeIs(1000));
  EXPECT_EQ(listed->front().results_size(), 0);
}

TEST(SqliteTestHistoryTest, EmptyPathIsInvalid) {
  EXPECT_EQ(SqliteTestHistory::Open("").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SqliteTestHistoryTest, MissingDirectoryIsNotCreated) {
  TempDir dir;
  const std::string path = dir.File("missing/history.db");
  auto history = SqliteTestHistory::Open(path);
  EXPECT_EQ(history.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(history.status().message()),
              AllOf(HasSubstr(path), HasSubstr(dir.File("missing")), HasSubstr("does not exist")));
  EXPECT_FALSE(std::filesystem::exists(dir.File("missing")));
}

TEST(SqliteTestHistoryTest, ParentThatIsAFileIsRefused) {
  // Holds for root too, unlike permission bits (CI runs as root).
  TempDir dir;
  WriteFile(dir.File("plain"), "x");
  const std::string path = dir.File("plain/history.db");
  auto history = SqliteTestHistory::Open(path);
  EXPECT_EQ(history.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(history.status().message()),
              AllOf(HasSubstr(path), HasSubstr("is not a directory")));
}

TEST(SqliteTestHistoryTest, DirectoryInPlaceOfTheFileIsUnwritable) {
  TempDir dir;
  const std::string path = dir.File("history.db");
  std::filesystem::create_directory(path);
  auto history = SqliteTestHistory::Open(path);
  EXPECT_EQ(history.status().code(), absl::StatusCode::kUnavailable) << history.status();
  EXPECT_THAT(std::string(history.status().message()), AllOf(HasSubstr(path), HasSubstr("open")));
}

TEST(SqliteTestHistoryTest, FileThatIsNotADatabaseIsDataLoss) {
  TempDir dir;
  const std::string path = dir.File("history.db");
  std::string garbage;
  for (int i = 0; i < 512; ++i) garbage += "this is not an SQLite database. ";
  WriteFile(path, garbage);
  auto history = SqliteTestHistory::Open(path);
  EXPECT_EQ(history.status().code(), absl::StatusCode::kDataLoss) << history.status();
  EXPECT_THAT(std::string(history.status().message()),
              AllOf(HasSubstr(path), HasSubstr("not a database")));
}

TEST(SqliteTestHistoryTest, NewerSchemaIsRefused) {
  TempDir dir;
  const std::string path = dir.File("history.db");
  { ASSERT_NE(OpenOrDie(path), nullptr); }
  Query(path, "UPDATE schema_version SET version = 99");
  auto history = SqliteTestHistory::Open(path);
  EXPECT_EQ(history.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(history.status().message()),
              AllOf(HasSubstr(path), HasSubstr("schema version 99")));
}

TEST(SqliteTestHistoryTest, UndecodableRowIsShownFromItsColumnsListedAndInterrupted) {
  TempDir dir;
  const std::string path = dir.File("history.db");
  auto history = OpenOrDie(path);
  ASSERT_NE(history, nullptr);
  ASSERT_TRUE(history->Save(MakeReport("t-good", 1000, v1::TEST_STATE_PASSED)).ok());
  ASSERT_TRUE(history->Save(MakeReport("t-bad", 2000, v1::TEST_STATE_RUNNING)).ok());
  // Field 1 with wire type 7 (invalid): no parser accepts it.
  Query(path, "UPDATE tests SET report = x'0f0f0f', brief = x'0f0f0f' WHERE test_id = 't-bad'");

  // Shown as broken, not an error (issue 32, item 2).
  auto bad = history->Get("t-bad");
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_EQ(bad->test_id(), "t-bad");
  EXPECT_THAT(bad->summary(), HasSubstr("unreadable"));

  auto listed = history->List(10);
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_THAT(*listed, SizeIs(2));
  EXPECT_EQ((*listed)[0].test_id(), "t-bad");
  EXPECT_EQ((*listed)[0].start_time_unix_ms(), 2000);
  EXPECT_EQ((*listed)[0].state(), v1::TEST_STATE_RUNNING);
  EXPECT_THAT((*listed)[0].summary(), HasSubstr("unreadable"));
  EXPECT_EQ((*listed)[1].test_id(), "t-good");

  auto changed = history->MarkInterrupted("restart", 3000);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(*changed, 1);
  EXPECT_THAT(Query(path, "SELECT state FROM tests WHERE test_id = 't-bad'"),
              ElementsAre("interrupted"));
}

}  // namespace
}  // namespace eb::coordinator
