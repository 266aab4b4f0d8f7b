// How a finished test counts for the validation (result_from_report.h), and
// the test a planned one runs as (spec_proto.h's TestSpecFor).

#include "coordinator/validation/result_from_report.h"

#include "coordinator/validation/spec_proto.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::validation {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
// The core's Outcome; a unity batch also holds scripted_fleet.h's.
using TestOutcome = ::eb::validation::Outcome;

v1::TestReport Report(v1::TestState state, bool with_rows) {
  v1::TestReport report;
  report.set_state(state);
  report.set_summary("summary");
  if (with_rows) {
    for (double busbw : {1.0, 10.0}) {  // the largest size is the last row
      v1::SizeResult& row = *report.add_results();
      row.mutable_out_of_place()->set_busbw_gbps(busbw);
      row.mutable_in_place()->set_busbw_gbps(busbw + 2);
    }
  }
  return report;
}

void AddFailure(v1::TestReport& report, v1::FailureKind kind, const std::string& node) {
  v1::Failure& f = *report.add_failures();
  f.set_kind(kind);
  f.set_node_name(node);
  f.set_rank(node.empty() ? -1 : 0);
}

TEST(ValidationOutcomeTest, PassedIsCompletedWithTheLargestSizesBusbw) {
  const TestResult r = ResultFromReport(7, Report(v1::TEST_STATE_PASSED, true));
  EXPECT_EQ(r.test_id, 7);
  EXPECT_EQ(r.outcome, TestOutcome::kCompleted);
  EXPECT_DOUBLE_EQ(r.busbw_gbps, 11.0);
}

TEST(ValidationOutcomeTest, SplitRailsGiveOneBusbwPerRailFromItsLargestSize) {
  v1::TestReport report = Report(v1::TEST_STATE_PASSED, true);
  for (int rail = 0; rail < 3; ++rail) {
    v1::RailResult& result = *report.add_rails();
    result.set_rail(rail);
    for (double busbw : {0.5, 4.0 + rail}) {  // the largest size is the last row
      v1::SizeResult& row = *result.add_results();
      row.mutable_out_of_place()->set_busbw_gbps(busbw);
      row.mutable_in_place()->set_busbw_gbps(busbw);
    }
  }
  report.add_rails()->set_rail(3);  // no rows (never in a passed test): left out
  const TestResult r = ResultFromReport(7, report);
  EXPECT_EQ(r.outcome, TestOutcome::kCompleted);
  EXPECT_DOUBLE_EQ(r.busbw_gbps, 11.0);
  ASSERT_EQ(r.rails.size(), 3u);
  for (int rail = 0; rail < 3; ++rail) {
    EXPECT_EQ(r.rails[rail].rail, rail);
    EXPECT_DOUBLE_EQ(r.rails[rail].busbw_gbps, 4.0 + rail);
  }
}

// The other direction (spec_proto.h): a pair test planned with split
// rails asks the workers for them over NCCL only (a Gloo slot has no GPU).
TEST(ValidationOutcomeTest, PairTestsSplitRailsOnlyOverNccl) {
  PlannedTest planned;
  planned.nodes = {"a", "b"};
  planned.split_rails = true;
  EXPECT_TRUE(TestSpecFor(planned, v1::ValidationSpec(), /*nccl=*/true).split_rails());
  EXPECT_FALSE(TestSpecFor(planned, v1::ValidationSpec(), /*nccl=*/false).split_rails());
  planned.split_rails = false;
  EXPECT_FALSE(TestSpecFor(planned, v1::ValidationSpec(), /*nccl=*/true).split_rails());
}

// Preflight judges a validation's inventories on every fact the drift check
// does (inventory_facts.h); a difference it could not see (preflight off, or
// an agent that re-registered since) must not refuse a fit pair's test.
TEST(ValidationOutcomeTest, ValidationTestsRunDespiteDriftPreflightDoesNotJudge) {
  PlannedTest planned;
  planned.nodes = {"a", "b"};
  EXPECT_TRUE(TestSpecFor(planned, v1::ValidationSpec(), /*nccl=*/true).allow_drift());
  EXPECT_TRUE(TestSpecFor(planned, v1::ValidationSpec(), /*nccl=*/false).allow_drift());
}

TEST(ValidationOutcomeTest, BelowMinBusbwAloneIsStillAMeasurement) {
  v1::TestReport report = Report(v1::TEST_STATE_FAILED, true);
  AddFailure(report, v1::FAILURE_KIND_BELOW_MIN_BUSBW, "");
  EXPECT_EQ(ResultFromReport(1, report).outcome, TestOutcome::kCompleted);
}

TEST(ValidationOutcomeTest, NodeLostIsInfraNamingEveryLostNode) {
  v1::TestReport report = Report(v1::TEST_STATE_FAILED, true);
  AddFailure(report, v1::FAILURE_KIND_NODE_LOST, "b");
  AddFailure(report, v1::FAILURE_KIND_NODE_LOST, "c");
  AddFailure(report, v1::FAILURE_KIND_COMMUNICATION_ERROR, "a");
  const TestResult r = ResultFromReport(1, report);
  EXPECT_EQ(r.outcome, TestOutcome::kInfraFailure);
  EXPECT_THAT(r.nodes, ElementsAre("b", "c"));
}

TEST(ValidationOutcomeTest, TimeoutBeforeAnyRowIsInfraNamingNobody) {
  v1::TestReport report = Report(v1::TEST_STATE_TIMED_OUT, false);
  AddFailure(report, v1::FAILURE_KIND_TIMEOUT, "a");
  const TestResult r = ResultFromReport(1, report);
  EXPECT_EQ(r.outcome, TestOutcome::kInfraFailure);
  EXPECT_THAT(r.nodes, IsEmpty());
}

// Issue 29: a data path that carried nothing is the worst network fault, not
// "no information": a hardware failure of every node of the test, which pair
// inference re-tests with other partners before blaming a node or the path.
TEST(ValidationOutcomeTest, NoProgressIsHardwareNamingEveryNodeOfTheTest) {
  for (const bool with_rows : {false, true}) {
    v1::TestReport report = Report(v1::TEST_STATE_TIMED_OUT, with_rows);
    for (const char* node : {"a", "a", "b", "b"}) report.add_ranks()->set_node_name(node);
    AddFailure(report, v1::FAILURE_KIND_NO_PROGRESS, "");
    const TestResult r = ResultFromReport(1, report);
    EXPECT_EQ(r.outcome, TestOutcome::kHardwareFailure);
    EXPECT_THAT(r.nodes, ElementsAre("a", "b"));
  }
}

// Issue 29, item 4: NCCL took another path than configured on one rank: a
// hardware failure of that rank's node, however good the bandwidth.
TEST(ValidationOutcomeTest, UnexpectedPathIsHardwareNamingTheRanksNode) {
  v1::TestReport report = Report(v1::TEST_STATE_FAILED, true);
  AddFailure(report, v1::FAILURE_KIND_UNEXPECTED_PATH, "b");
  const TestResult r = ResultFromReport(1, report);
  EXPECT_EQ(r.outcome, TestOutcome::kHardwareFailure);
  EXPECT_THAT(r.nodes, ElementsAre("b"));
}

// A size too big for the step deadline is a measurement: completed with the
// rows measured, cut short (graded slow), not an infrastructure failure.
TEST(ValidationOutcomeTest, TooSlowIsCompletedCutShortWithTheRowsMeasured) {
  v1::TestReport report = Report(v1::TEST_STATE_FAILED, true);
  AddFailure(report, v1::FAILURE_KIND_TOO_SLOW, "");
  const TestResult r = ResultFromReport(1, report);
  EXPECT_EQ(r.outcome, TestOutcome::kCompleted);
  EXPECT_TRUE(r.cut_short);
  EXPECT_DOUBLE_EQ(r.busbw_gbps, 11.0);
  EXPECT_EQ(r.message, "summary");
}

// With the ranks' progress, too_slow carries the busbw of the calls done at
// the size that could not finish: that is the figure graded, rows or not.
TEST(ValidationOutcomeTest, TooSlowIsGradedByTheBusbwOfTheCallsDoneAtTheCutSize) {
  for (const bool with_rows : {false, true}) {
    v1::TestReport report = Report(v1::TEST_STATE_FAILED, with_rows);
    AddFailure(report, v1::FAILURE_KIND_TOO_SLOW, "");
    report.mutable_failures(0)->set_measured_busbw_gbps(0.25);
    const TestResult r = ResultFromReport(1, report);
    EXPECT_EQ(r.outcome, TestOutcome::kCompleted);
    EXPECT_TRUE(r.cut_short);
    EXPECT_DOUBLE_EQ(r.busbw_gbps, 0.25);
  }
}

TEST(ValidationOutcomeTest, CancelledIsInfra) {
  EXPECT_EQ(ResultFromReport(1, Report(v1::TEST_STATE_CANCELLED, true)).outcome,
            TestOutcome::kInfraFailure);
}

TEST(ValidationOutcomeTest, WrongDataIsHardwareOfThePrimaryRanksNode) {
  v1::TestReport report = Report(v1::TEST_STATE_FAILED, true);
  AddFailure(report, v1::FAILURE_KIND_WRONG_DATA, "c");
  AddFailure(report, v1::FAILURE_KIND_WRONG_DATA, "d");
  const TestResult r = ResultFromReport(1, report);
  EXPECT_EQ(r.outcome, TestOutcome::kHardwareFailure);
  EXPECT_THAT(r.nodes, ElementsAre("c"));
}

TEST(ValidationOutcomeTest, WorkerExitedWithoutANodeIsInfra) {
  v1::TestReport report = Report(v1::TEST_STATE_FAILED, true);
  AddFailure(report, v1::FAILURE_KIND_WORKER_EXITED, "");
  EXPECT_EQ(ResultFromReport(1, report).outcome, TestOutcome::kInfraFailure);
}

}  // namespace
}  // namespace eb::validation
