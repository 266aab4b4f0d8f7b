// The AuditHistory contract on both implementations: entries come back
// newest first, limited, unchanged; SQLite keeps them across a reopen.

#include <memory>
#include <string>

#include "coordinator/history/in_memory_audit_history.h"
#include "coordinator/history/sqlite_audit_history.h"
#include "coordinator/history/sqlite_history.h"
#include "gtest/gtest.h"
#include "tests/unit/history/history_test_util.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;

v1::AuditEntry Entry(int64_t time_ms, const std::string& identity, const std::string& method,
                     const std::string& outcome) {
  v1::AuditEntry entry;
  entry.set_time_unix_ms(time_ms);
  entry.set_identity(identity);
  entry.set_role("operator");
  entry.set_method(method);
  entry.set_target("test_id=t-1");
  entry.set_outcome(outcome);
  entry.set_message(outcome == "OK" ? "" : "CancelTest needs role admin");
  entry.set_peer("ipv4:127.0.0.1:5000");
  return entry;
}

void ExpectNewestFirstAndLimited(AuditHistory& history) {
  ASSERT_TRUE(history.Append(Entry(1, "alice", "RunTest", "OK")).ok());
  ASSERT_TRUE(history.Append(Entry(2, "bob", "CancelTest", "PERMISSION_DENIED")).ok());
  ASSERT_TRUE(history.Append(Entry(2, "alice", "CancelTest", "OK")).ok());
  absl::StatusOr<std::vector<v1::AuditEntry>> all = history.List(0);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 3u);
  // Same time: the order of appending decides.
  EXPECT_EQ((*all)[0].identity(), "alice");
  EXPECT_EQ((*all)[0].method(), "CancelTest");
  EXPECT_EQ((*all)[1].identity(), "bob");
  EXPECT_EQ((*all)[1].outcome(), "PERMISSION_DENIED");
  EXPECT_EQ((*all)[1].message(), "CancelTest needs role admin");
  EXPECT_EQ((*all)[1].target(), "test_id=t-1");
  EXPECT_EQ((*all)[1].role(), "operator");
  EXPECT_EQ((*all)[1].peer(), "ipv4:127.0.0.1:5000");
  EXPECT_EQ((*all)[2].method(), "RunTest");
  absl::StatusOr<std::vector<v1::AuditEntry>> two = history.List(2);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->size(), 2u);
}

TEST(InMemoryAuditHistoryTest, NewestFirstAndLimited) {
  InMemoryAuditHistory history;
  ExpectNewestFirstAndLimited(history);
}

TEST(InMemoryAuditHistoryTest, KeepsTheNewestBeyondItsBound) {
  InMemoryAuditHistory history(2);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(history.Append(Entry(i, "a", "RunTest", "OK")).ok());
  absl::StatusOr<std::vector<v1::AuditEntry>> all = history.List(0);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].time_unix_ms(), 4);
  EXPECT_EQ((*all)[1].time_unix_ms(), 3);
}

TEST(SqliteAuditHistoryTest, NewestFirstAndKeptAcrossAReopen) {
  test::TempDir dir;
  const std::string path = dir.File("history.db");
  ASSERT_TRUE(SqliteTestHistory::Open(path).ok());  // creates and checks the file
  {
    absl::StatusOr<std::unique_ptr<SqliteAuditHistory>> history = SqliteAuditHistory::Open(path);
    ASSERT_TRUE(history.ok()) << history.status();
    ExpectNewestFirstAndLimited(**history);
  }
  absl::StatusOr<std::unique_ptr<SqliteAuditHistory>> reopened = SqliteAuditHistory::Open(path);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  absl::StatusOr<std::vector<v1::AuditEntry>> all = (*reopened)->List(0);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 3u);
}

}  // namespace
}  // namespace eb::coordinator
