// The history never breaks (issue 32, item 2): one bad row, too large,
// not UTF-8, or cut in the middle of a character, must not make `ebctl
// tests`, `show` or `audit` fail. Free text is bounded and made valid on
// the way in (common/spec/bounded_text.h), and rows written before that, or
// damaged, are read defensively: shown as broken, the others listed.

#include <sqlite3.h>
#include <sys/stat.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "common/spec/bounded_text.h"
#include "coordinator/history/sqlite_audit_history.h"
#include "coordinator/history/sqlite_history.h"
#include "coordinator/history/sqlite_validation_history.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/history/history_test_util.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;
using test::MakeReport;
using test::TempDir;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::SizeIs;

// Runs `sql` through a separate connection, as an operator's sqlite3 would.
void Exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error != nullptr ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

// What gRPC does with a reply: it must serialize and parse back.
template <typename M>
bool SurvivesTheWire(const M& message) {
  std::string wire;
  M back;
  return message.SerializeToString(&wire) && back.ParseFromString(wire);
}

std::string Hex(const std::string& bytes) { return absl::BytesToHexString(bytes); }

// P2-4f1: 8 MB failure messages were stored uncut; `ebctl show` then failed
// and `ebctl tests` listed nothing, across restarts.
TEST(HistoryBadRowsTest, P2_4f1_OversizedFreeTextIsBoundedOnTheWayIn) {
  TempDir dir;
  auto history = SqliteTestHistory::Open(dir.File("history.db"));
  ASSERT_TRUE(history.ok()) << history.status();
  v1::TestReport report = MakeReport("t-big", 1000, v1::TEST_STATE_FAILED);
  for (int i = 0; i < 30; ++i) report.add_failures()->set_message(std::string(8 << 20, 'x'));
  ASSERT_TRUE((*history)->Save(report).ok());
  ASSERT_TRUE((*history)->Save(MakeReport("t-next", 2000, v1::TEST_STATE_PASSED)).ok());

  auto stored = (*history)->Get("t-big");
  ASSERT_TRUE(stored.ok()) << stored.status();
  ASSERT_THAT(stored->failures(), SizeIs(31));
  EXPECT_LE(stored->failures(1).message().size(), spec::kMaxStoredTextBytes);
  EXPECT_THAT(stored->failures(1).message(), EndsWith(" bytes]"));
  EXPECT_LT(stored->ByteSizeLong(), size_t{4} << 20);
  auto listed = (*history)->List(10);
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_THAT(*listed, SizeIs(2));
}

// A row whose report is not UTF-8 where protobuf requires it (written by an
// older build, or by hand): `show` shows it as unreadable, `tests` lists it
// and the others.
TEST(HistoryBadRowsTest, InvalidUtf8RowIsShownAsBrokenAndTheOthersListed) {
  TempDir dir;
  const std::string path = dir.File("history.db");
  auto history = SqliteTestHistory::Open(path);
  ASSERT_TRUE(history.ok()) << history.status();
  ASSERT_TRUE((*history)->Save(MakeReport("t-good", 1000, v1::TEST_STATE_PASSED)).ok());
  ASSERT_TRUE((*history)->Save(MakeReport("t-bad", 2000, v1::TEST_STATE_FAILED)).ok());
  // The stored report and brief with one byte of the summary made 0xFF, and
  // the summary column cut mid-character.
  std::string blob = MakeReport("t-bad", 2000, v1::TEST_STATE_FAILED).SerializeAsString();
  blob[blob.find("summary of")] = '\xFF';
  Exec(path, "UPDATE tests SET report = x'" + Hex(blob) + "', brief = x'" + Hex(blob) +
                 "', summary = CAST(x'6f6b20e282' AS TEXT) WHERE test_id = 't-bad'");

  auto bad = (*history)->Get("t-bad");
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_EQ(bad->test_id(), "t-bad");
  EXPECT_TRUE(spec::IsValidUtf8(bad->summary())) << bad->summary();
  EXPECT_TRUE(SurvivesTheWire(*bad));

  auto listed = (*history)->List(10);
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_THAT(*listed, SizeIs(2));
  EXPECT_EQ((*listed)[0].test_id(), "t-bad");
  EXPECT_EQ((*listed)[1].test_id(), "t-good");
  for (const v1::TestReport& report : *listed) EXPECT_TRUE(SurvivesTheWire(report));
}

// An undecodable report (not protobuf at all) is shown from its columns.
TEST(HistoryBadRowsTest, UndecodableReportIsShownFromItsColumns) {
  TempDir dir;
  const std::string path = dir.File("history.db");
  auto history = SqliteTestHistory::Open(path);
  ASSERT_TRUE(history.ok()) << history.status();
  ASSERT_TRUE((*history)->Save(MakeReport("t-bad", 2000, v1::TEST_STATE_PASSED)).ok());
  Exec(path, "UPDATE tests SET report = x'0f0f0f', brief = x'0f0f0f' WHERE test_id = 't-bad'");
  auto bad = (*history)->Get("t-bad");
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_EQ(bad->state(), v1::TEST_STATE_PASSED);
  EXPECT_THAT(bad->summary(), HasSubstr("[stored report unreadable]"));
}

// P2-6.4: a refused CancelTest of "x" + 400 x "€" left an audit target cut
// mid-character; every later `ebctl audit` failed, also after a restart.
TEST(HistoryBadRowsTest, P2_6_4_AuditRowCutMidCharacterStillLists) {
  TempDir dir;
  const std::string path = dir.File("history.db");
  ASSERT_TRUE(SqliteTestHistory::Open(path).ok());  // creates and checks the file
  auto audit = SqliteAuditHistory::Open(path);
  ASSERT_TRUE(audit.ok()) << audit.status();
  v1::AuditEntry entry;
  entry.set_identity("viewer");
  entry.set_method("CancelTest");
  std::string target = "test_id=x";
  for (int i = 0; i < 400; ++i) target += "\xE2\x82\xAC";
  entry.set_target(target.substr(0, 512));  // as the coordinator used to cut it
  ASSERT_TRUE((*audit)->Append(entry).ok());
  // A row written by an older build: the raw cut bytes.
  Exec(path,
       "INSERT INTO audit (time_ms, identity, role, method, target, outcome, message, peer) "
       "VALUES (1, 'viewer', 'viewer', 'CancelTest', CAST(x'78e282' AS TEXT), "
       "'PERMISSION_DENIED', CAST(x'ff' AS TEXT), 'ipv4:1.2.3.4:5')");
  v1::AuditEntry good = entry;
  good.set_target("test_id=t-1");
  ASSERT_TRUE((*audit)->Append(good).ok());

  auto listed = (*audit)->List(0);
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_THAT(*listed, SizeIs(3));
  v1::ListAuditReply reply;
  for (const v1::AuditEntry& row : *listed) *reply.add_entries() = row;
  EXPECT_TRUE(SurvivesTheWire(reply));
  EXPECT_EQ((*listed)[0].target(), "test_id=t-1");
}

TEST(HistoryBadRowsTest, BrokenValidationRowIsListedAsBroken) {
  TempDir dir;
  const std::string path = dir.File("history.db");
  ASSERT_TRUE(SqliteTestHistory::Open(path).ok());  // creates and checks the file
  auto validations = SqliteValidationHistory::Open(path);
  ASSERT_TRUE(validations.ok()) << validations.status();
  v1::ValidationReport report;
  report.set_validation_id("v-1");
  report.set_summary(std::string("bad \xFF ") + std::string(1 << 20, 's'));
  ASSERT_TRUE((*validations)->Save(report).ok());
  report.set_validation_id("v-2");
  ASSERT_TRUE((*validations)->Save(report).ok());
  Exec(path, "UPDATE validations SET report = x'0f0f0f' WHERE validation_id = 'v-2'");

  auto one = (*validations)->Get("v-1");
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_TRUE(spec::IsValidUtf8(one->summary()));
  EXPECT_LE(one->summary().size(), spec::kMaxStoredTextBytes);
  auto two = (*validations)->Get("v-2");
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_THAT(two->summary(), HasSubstr("[stored report unreadable]"));
  auto listed = (*validations)->List(0);
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_THAT(*listed, SizeIs(2));
}

// A FIFO as the history file blocked SQLite's open (and so the start) forever.
TEST(HistoryBadRowsTest, HistoryFileThatIsAFifoIsRefusedByName) {
  TempDir dir;
  const std::string path = dir.File("history.db");
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  auto history = SqliteTestHistory::Open(path);
  EXPECT_EQ(history.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(history.status().message()), HasSubstr("not a regular file"));
}

}  // namespace
}  // namespace eb::coordinator
