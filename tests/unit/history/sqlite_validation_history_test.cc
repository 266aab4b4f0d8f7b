// SqliteValidationHistory: reports and each node's last verdict kept in the
// history file, across a reopen, and a node's bad verdicts counted once per
// finished validation.

#include "coordinator/history/sqlite_validation_history.h"

#include <memory>
#include <string>

#include "coordinator/history/sqlite_history.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/history/history_test_util.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;

v1::ValidationReport Report(const std::string& id, int64_t start_ms, v1::ValidationState state,
                            v1::Verdict verdict_of_b) {
  v1::ValidationReport report;
  report.set_validation_id(id);
  report.set_state(state);
  report.set_start_time_unix_ms(start_ms);
  report.set_end_time_unix_ms(start_ms + 10);
  v1::NodeVerdict& a = *report.add_nodes();
  a.set_node_name("a");
  a.set_verdict(v1::VERDICT_HEALTHY);
  a.add_evidence()->set_text("fine");
  v1::NodeVerdict& b = *report.add_nodes();
  b.set_node_name("b");
  b.set_verdict(verdict_of_b);
  report.add_rounds()->add_tests()->set_test_id("t-1");
  return report;
}

TEST(SqliteValidationHistoryTest, KeepsReportsAndLastVerdictsAcrossAReopen) {
  test::TempDir dir;
  const std::string path = dir.File("history.db");
  ASSERT_TRUE(SqliteTestHistory::Open(path).ok());  // creates the file, as the coordinator does
  {
    auto history = SqliteValidationHistory::Open(path);
    ASSERT_TRUE(history.ok()) << history.status();
    ASSERT_TRUE((*history)
                    ->Save(Report("v-1", 100, v1::VALIDATION_STATE_RUNNING, v1::VERDICT_HEALTHY))
                    .ok());
    ASSERT_TRUE(
        (*history)->Save(Report("v-1", 100, v1::VALIDATION_STATE_DONE, v1::VERDICT_DEGRADED)).ok());
    // Saved again (e.g. a retry): counted once.
    ASSERT_TRUE(
        (*history)->Save(Report("v-1", 100, v1::VALIDATION_STATE_DONE, v1::VERDICT_DEGRADED)).ok());
    ASSERT_TRUE(
        (*history)->Save(Report("v-2", 200, v1::VALIDATION_STATE_DONE, v1::VERDICT_FAILED)).ok());
  }
  auto history = SqliteValidationHistory::Open(path);
  ASSERT_TRUE(history.ok()) << history.status();
  absl::StatusOr<v1::ValidationReport> got = (*history)->Get("v-1");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->state(), v1::VALIDATION_STATE_DONE);
  EXPECT_EQ(got->nodes(0).evidence_size(), 1);
  EXPECT_EQ((*history)->Get("v-9").status().code(), absl::StatusCode::kNotFound);

  absl::StatusOr<std::vector<v1::ValidationReport>> list = (*history)->List(0);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].validation_id(), "v-2");  // newest first
  EXPECT_EQ((*list)[1].nodes(0).evidence_size(), 0);

  absl::StatusOr<std::vector<NodeVerdictRecord>> verdicts = (*history)->LastVerdicts();
  ASSERT_TRUE(verdicts.ok());
  ASSERT_EQ(verdicts->size(), 2u);
  EXPECT_EQ((*verdicts)[1].node_name, "b");
  EXPECT_EQ((*verdicts)[1].verdict, v1::VERDICT_FAILED);
  EXPECT_EQ((*verdicts)[1].validation_id, "v-2");
  EXPECT_EQ((*verdicts)[1].bad_count, 2);
  EXPECT_EQ((*verdicts)[0].bad_count, 0);
}

TEST(SqliteValidationHistoryTest, ValidationsLeftRunningAreMarkedInterruptedWithoutVerdicts) {
  test::TempDir dir;
  const std::string path = dir.File("history.db");
  ASSERT_TRUE(SqliteTestHistory::Open(path).ok());
  auto history = SqliteValidationHistory::Open(path);
  ASSERT_TRUE(history.ok()) << history.status();
  ASSERT_TRUE((*history)
                  ->Save(Report("v-1", 100, v1::VALIDATION_STATE_RUNNING, v1::VERDICT_DEGRADED))
                  .ok());
  ASSERT_TRUE(
      (*history)->Save(Report("v-2", 200, v1::VALIDATION_STATE_DONE, v1::VERDICT_HEALTHY)).ok());

  absl::StatusOr<int> marked = MarkValidationsInterrupted(**history, "restart", 999);
  ASSERT_TRUE(marked.ok()) << marked.status();
  EXPECT_EQ(*marked, 1);
  absl::StatusOr<v1::ValidationReport> report = (*history)->Get("v-1");
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->state(), v1::VALIDATION_STATE_INTERRUPTED);
  EXPECT_EQ(report->nodes(0).evidence_size(), 1);  // the full report, not the brief
  EXPECT_THAT(report->summary(), ::testing::StartsWith("interrupted: restart"));
  // An unfinished validation's verdicts are not a node's record.
  absl::StatusOr<std::vector<NodeVerdictRecord>> verdicts = (*history)->LastVerdicts();
  ASSERT_TRUE(verdicts.ok());
  ASSERT_EQ(verdicts->size(), 2u);
  EXPECT_EQ((*verdicts)[1].validation_id, "v-2");
  EXPECT_EQ((*verdicts)[1].bad_count, 0);
  EXPECT_EQ(*MarkValidationsInterrupted(**history, "again", 1000), 0);
}

}  // namespace
}  // namespace eb::coordinator
