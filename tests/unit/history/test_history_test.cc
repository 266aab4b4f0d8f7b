// The TestHistory contract, run against both implementations: the in-memory
// one and SQLite in a temporary file.

#include "coordinator/history/history_store.h"

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "coordinator/history/in_memory_history.h"
#include "coordinator/history/sqlite_history.h"
#include "coordinator/history/write_behind_history.h"
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
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

std::vector<std::string> Ids(const std::vector<v1::TestReport>& reports) {
  std::vector<std::string> ids;
  ids.reserve(reports.size());
  for (const v1::TestReport& report : reports) ids.push_back(report.test_id());
  return ids;
}

struct Backend {
  std::string name;
  // Makes a history keeping at most `max_tests` (0: all) in `dir`.
  std::function<std::unique_ptr<TestHistory>(const TempDir& dir, int max_tests)> make;
  // Waits until the saves so far are stored (the write-behind history
  // applies retention when it writes); nothing for the others.
  std::function<void(TestHistory&)> settle = [](TestHistory&) {};
};

std::unique_ptr<SqliteTestHistory> OpenSqlite(const TempDir& dir, int max_tests) {
  SqliteTestHistoryOptions options;
  options.max_tests = max_tests;
  auto history =
      SqliteTestHistory::Open(dir.File(absl::StrCat("history-", max_tests, ".db")), options);
  EXPECT_TRUE(history.ok()) << history.status();
  if (!history.ok()) return nullptr;
  return *std::move(history);
}

// For gtest's messages (instead of a dump of the struct's bytes).
void PrintTo(const Backend& backend, std::ostream* os) { *os << backend.name; }

class TestHistoryContractTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { history_ = Make(0); }

  std::unique_ptr<TestHistory> Make(int max_tests) {
    std::unique_ptr<TestHistory> history = GetParam().make(dir_, max_tests);
    EXPECT_NE(history, nullptr);
    return history;
  }

  void Save(const v1::TestReport& report) { ASSERT_TRUE(history_->Save(report).ok()); }

  std::vector<std::string> ListedIds(int limit) {
    auto listed = history_->List(limit);
    EXPECT_TRUE(listed.ok()) << listed.status();
    return listed.ok() ? Ids(*listed) : std::vector<std::string>{};
  }

  TempDir dir_;
  std::unique_ptr<TestHistory> history_;
};

TEST_P(TestHistoryContractTest, EmptyHistoryListsNothingAndKnowsNoTest) {
  EXPECT_THAT(ListedIds(10), IsEmpty());
  auto missing = history_->Get("t-nope");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("t-nope"));
}

TEST_P(TestHistoryContractTest, GetReturnsTheWholeReport) {
  const v1::TestReport report = MakeReport("t-1", 1000, v1::TEST_STATE_FAILED);
  Save(report);
  auto stored = history_->Get("t-1");
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_TRUE(MessageDifferencer::Equals(*stored, report)) << stored->DebugString();
}

TEST_P(TestHistoryContractTest, ListIsNewestFirstAndHonoursTheLimit) {
  Save(MakeReport("t-b", 2000, v1::TEST_STATE_PASSED));
  Save(MakeReport("t-c", 3000, v1::TEST_STATE_RUNNING));
  Save(MakeReport("t-a", 1000, v1::TEST_STATE_PASSED));
  // Same start time: the larger id first.
  Save(MakeReport("t-d", 2000, v1::TEST_STATE_FAILED));

  EXPECT_THAT(ListedIds(0), ElementsAre("t-c", "t-d", "t-b", "t-a"));
  EXPECT_THAT(ListedIds(-1), ElementsAre("t-c", "t-d", "t-b", "t-a"));
  EXPECT_THAT(ListedIds(2), ElementsAre("t-c", "t-d"));
  EXPECT_THAT(ListedIds(1), ElementsAre("t-c"));
  EXPECT_THAT(ListedIds(100), SizeIs(4));
}

TEST_P(TestHistoryContractTest, ListStripsPerSizeResultsOnly) {
  const v1::TestReport report = MakeReport("t-1", 1000, v1::TEST_STATE_FAILED, 2, 4, 5);
  Save(report);
  auto listed = history_->List(10);
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_THAT(*listed, SizeIs(1));
  EXPECT_THAT(listed->front().results(), IsEmpty());
  v1::TestReport expected = report;
  expected.clear_results();
  EXPECT_TRUE(MessageDifferencer::Equals(listed->front(), expected));
  // Get still has them.
  auto stored = history_->Get("t-1");
  ASSERT_TRUE(stored.ok());
  EXPECT_THAT(stored->results(), SizeIs(5));
}

TEST_P(TestHistoryContractTest, SavingAgainReplacesTheReport) {
  v1::TestReport report = MakeReport("t-1", 1000, v1::TEST_STATE_LAUNCHING, 2, 2, 0);
  Save(report);
  report = MakeReport("t-1", 1000, v1::TEST_STATE_PASSED, 2, 2, 3);
  report.set_summary("passed: 3 sizes");
  Save(report);

  auto stored = history_->Get("t-1");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->state(), v1::TEST_STATE_PASSED);
  EXPECT_EQ(stored->summary(), "passed: 3 sizes");
  EXPECT_THAT(stored->results(), SizeIs(3));
  EXPECT_THAT(ListedIds(10), ElementsAre("t-1"));
}

TEST_P(TestHistoryContractTest, RejectsAReportWithoutId) {
  v1::TestReport report = MakeReport("", 1000, v1::TEST_STATE_PASSED);
  EXPECT_EQ(history_->Save(report).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(ListedIds(10), IsEmpty());
}

TEST_P(TestHistoryContractTest, MarkInterruptedChangesOnlyUnfinishedTests) {
  const v1::TestState kUnfinished[] = {v1::TEST_STATE_LAUNCHING, v1::TEST_STATE_INITIALIZING,
                                       v1::TEST_STATE_RUNNING, v1::TEST_STATE_STOPPING,
                                       v1::TEST_STATE_UNSPECIFIED};
  const v1::TestState kFinished[] = {v1::TEST_STATE_PASSED, v1::TEST_STATE_FAILED,
                                     v1::TEST_STATE_TIMED_OUT, v1::TEST_STATE_CANCELLED,
                                     v1::TEST_STATE_INTERRUPTED};
  int start = 1000;
  for (v1::TestState state : kUnfinished) {
    Save(MakeReport(absl::StrCat("open-", StateColumnName(state)), start++, state));
  }
  std::vector<v1::TestReport> finished;
  for (v1::TestState state : kFinished) {
    finished.push_back(MakeReport(absl::StrCat("done-", StateColumnName(state)), start++, state));
    Save(finished.back());
  }
  // A running test that already saw a failure keeps it behind the new one.
  v1::TestReport failing = MakeReport("open-failing", start++, v1::TEST_STATE_STOPPING);
  v1::Failure& earlier = *failing.add_failures();
  earlier.set_kind(v1::FAILURE_KIND_WRONG_DATA);
  earlier.set_message("rank 3 saw wrong data");
  Save(failing);

  auto changed = history_->MarkInterrupted("coordinator restarted", 99000);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(*changed, 6);

  for (v1::TestState state : kUnfinished) {
    const std::string id = absl::StrCat("open-", StateColumnName(state));
    auto stored = history_->Get(id);
    ASSERT_TRUE(stored.ok()) << id;
    EXPECT_EQ(stored->state(), v1::TEST_STATE_INTERRUPTED) << id;
    EXPECT_EQ(stored->end_time_unix_ms(), 99000) << id;
    EXPECT_EQ(stored->summary(), "interrupted: coordinator restarted") << id;
    ASSERT_THAT(stored->failures(), SizeIs(1)) << id;
    EXPECT_EQ(stored->failures(0).kind(), v1::FAILURE_KIND_INTERRUPTED);
    EXPECT_EQ(stored->failures(0).rank(), -1);
    EXPECT_EQ(stored->failures(0).message(), "coordinator restarted");
    // Results gathered before the restart stay.
    EXPECT_THAT(stored->results(), SizeIs(3)) << id;
  }
  for (const v1::TestReport& report : finished) {
    auto stored = history_->Get(report.test_id());
    ASSERT_TRUE(stored.ok());
    EXPECT_TRUE(MessageDifferencer::Equals(*stored, report)) << report.test_id();
  }
  auto stored = history_->Get("open-failing");
  ASSERT_TRUE(stored.ok());
  ASSERT_THAT(stored->failures(), SizeIs(2));
  EXPECT_EQ(stored->failures(0).kind(), v1::FAILURE_KIND_INTERRUPTED);
  EXPECT_EQ(stored->failures(1).kind(), v1::FAILURE_KIND_WRONG_DATA);

  // The list shows the new states too, and a second pass finds nothing.
  auto listed = history_->List(0);
  ASSERT_TRUE(listed.ok());
  for (const v1::TestReport& report : *listed) EXPECT_TRUE(IsTerminalState(report.state()));
  changed = history_->MarkInterrupted("again", 100000);
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(*changed, 0);
}

TEST_P(TestHistoryContractTest, KeepsAnEndTimeAlreadySet) {
  v1::TestReport report = MakeReport("t-1", 1000, v1::TEST_STATE_STOPPING);
  report.set_end_time_unix_ms(5000);
  Save(report);
  ASSERT_TRUE(history_->MarkInterrupted("restart", 9000).ok());
  auto stored = history_->Get("t-1");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->end_time_unix_ms(), 5000);
}

TEST_P(TestHistoryContractTest, RetentionDropsOldestFinishedTestsOnly) {
  history_ = Make(3);
  Save(MakeReport("t-1", 1000, v1::TEST_STATE_RUNNING));  // oldest, but unfinished
  Save(MakeReport("t-2", 2000, v1::TEST_STATE_PASSED));
  Save(MakeReport("t-3", 3000, v1::TEST_STATE_PASSED));
  Save(MakeReport("t-4", 4000, v1::TEST_STATE_FAILED));
  Save(MakeReport("t-5", 5000, v1::TEST_STATE_PASSED));
  GetParam().settle(*history_);
  EXPECT_THAT(ListedIds(0), ElementsAre("t-5", "t-4", "t-3", "t-1"));
  EXPECT_EQ(history_->Get("t-2").status().code(), absl::StatusCode::kNotFound);
}

INSTANTIATE_TEST_SUITE_P(
    Backends, TestHistoryContractTest,
    ::testing::Values(
        Backend{"InMemory",
                [](const TempDir&, int max_tests) -> std::unique_ptr<TestHistory> {
                  return std::make_unique<InMemoryTestHistory>(max_tests);
                }},
        Backend{"Sqlite",
                [](const TempDir& dir, int max_tests) -> std::unique_ptr<TestHistory> {
                  return OpenSqlite(dir, max_tests);
                }},
        Backend{
            "WriteBehindSqlite",
            [](const TempDir& dir, int max_tests) -> std::unique_ptr<TestHistory> {
              return std::make_unique<WriteBehindTestHistory>(OpenSqlite(dir, max_tests));
            },
            [](TestHistory& history) { static_cast<WriteBehindTestHistory&>(history).Flush(); }}),
    [](const ::testing::TestParamInfo<Backend>& param_info) { return param_info.param.name; });

TEST(MarkReportInterruptedTest, LeavesTerminalReportsAlone) {
  v1::TestReport report = MakeReport("t-1", 1000, v1::TEST_STATE_CANCELLED);
  const v1::TestReport before = report;
  EXPECT_FALSE(MarkReportInterrupted(report, "restart", 2000));
  EXPECT_TRUE(MessageDifferencer::Equals(report, before));
}

TEST(StateColumnNameTest, ShortLowerCaseNames) {
  EXPECT_EQ(StateColumnName(v1::TEST_STATE_TIMED_OUT), "timed_out");
  EXPECT_EQ(StateColumnName(v1::TEST_STATE_INTERRUPTED), "interrupted");
  EXPECT_EQ(StateColumnName(static_cast<v1::TestState>(77)), "unknown(77)");
}

}  // namespace
}  // namespace eb::coordinator
