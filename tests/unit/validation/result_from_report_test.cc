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
    int64_t size = int64_t{1} << 20;
    for (double busbw : {1.0, 10.0}) {  // the largest size is the last row
      v1::SizeResult& row = *report.add_results();
      row.set_size_bytes(size);
      size *= 2;
      row.mutable_out_of_place()->set_busbw_gbps(busbw);
      row.mutable_in_place()->set_busbw_gbps(busbw + 2);
    }
  }
  return report;
}

BaselineTable test_baselines() {
  BaselineTable table;
  table.intra.push_back({"H100", 8, 370, "s"});
  table.gloo_pairs.push_back({10000, 0.4, "site", {}});
  return table;
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
  EXPECT_EQ(r.graded_bytes, int64_t{2} << 20);
  EXPECT_EQ(r.plateau_bytes, int64_t{2} << 20);  // 2 GB/s at 1M is far below 11
}

// P2-4d (issue 32 item 3): a validation grades the judged figures, which
// no node's ranks can raise; a report stored before them, the shown ones.
TEST(ValidationOutcomeTest, P2_4d_TheGradedFiguresAreTheJudgedOnes) {
  v1::TestReport report = Report(v1::TEST_STATE_PASSED, true);
  for (v1::SizeResult& row : *report.mutable_results()) {
    for (v1::VariantResult* variant : {row.mutable_out_of_place(), row.mutable_in_place()}) {
      variant->set_judged_time_us(100);  // a node's ranks claimed 10x shorter
      variant->set_judged_busbw_gbps(variant->busbw_gbps() / 10);
    }
  }
  v1::RailResult& rail = *report.add_rails();
  v1::SizeResult& rail_row = *rail.add_results();
  rail_row.mutable_out_of_place()->set_busbw_gbps(8);
  rail_row.mutable_out_of_place()->set_judged_time_us(100);
  rail_row.mutable_out_of_place()->set_judged_busbw_gbps(2);
  rail_row.mutable_in_place()->set_busbw_gbps(8);  // no judged figure: the shown one
  const TestResult r = ResultFromReport(7, report);
  EXPECT_DOUBLE_EQ(r.busbw_gbps, 1.1);
  EXPECT_DOUBLE_EQ(LargestSizeBusbw(report), 1.1);
  ASSERT_EQ(r.rails.size(), 1u);
  EXPECT_DOUBLE_EQ(r.rails[0].busbw_gbps, 5.0);
}

// Issue 29, item 3: the plateau is the smallest size within 5 % of the
// largest size's busbw, and the runner passes it on for the pairs' size.
TEST(ValidationOutcomeTest, ASweepGivesItsPlateau) {
  v1::TestReport report = Report(v1::TEST_STATE_PASSED, false);
  int64_t size = int64_t{1} << 20;
  for (double busbw : {10.0, 60.0, 96.0, 99.0, 100.0}) {
    v1::SizeResult& row = *report.add_results();
    row.set_size_bytes(size);
    row.mutable_out_of_place()->set_busbw_gbps(busbw);
    row.mutable_in_place()->set_busbw_gbps(busbw);
    size *= 4;
  }
  const TestResult r = ResultFromReport(1, report);
  EXPECT_EQ(r.plateau_bytes, int64_t{16} << 20);  // 96 of 100
  EXPECT_EQ(r.graded_bytes, int64_t{256} << 20);
}

// A planned size (the plateau's) replaces the spec's sweep; without one the
// user's sweep and -n stand.
TEST(ValidationOutcomeTest, APlannedSizeReplacesTheSpecsSweep) {
  v1::ValidationSpec spec;
  spec.set_min_bytes(4096);
  spec.set_max_bytes(8192);
  spec.set_step_factor(4);
  spec.set_iterations(3);
  PlannedTest planned;
  planned.nodes = {"a", "b"};
  v1::TestSpec user = TestSpecFor(planned, spec, /*nccl=*/true);
  EXPECT_EQ(user.min_bytes(), 4096);
  EXPECT_EQ(user.max_bytes(), 8192);
  EXPECT_EQ(user.step_factor(), 4);
  EXPECT_EQ(user.iterations(), 3);
  planned.min_bytes = int64_t{1} << 20;
  planned.max_bytes = int64_t{1} << 30;
  planned.iterations = 20;
  v1::TestSpec plateau = TestSpecFor(planned, v1::ValidationSpec(), /*nccl=*/true);
  EXPECT_EQ(plateau.min_bytes(), int64_t{1} << 20);
  EXPECT_EQ(plateau.max_bytes(), int64_t{1} << 30);
  EXPECT_EQ(plateau.step_factor(), 2);
  EXPECT_EQ(plateau.iterations(), 20);
}

// Without -b/-e the sweep is the plateau's, NCCL's or Gloo's; a lone
// min_bytes or max below min is refused, naming the field.
TEST(ValidationOutcomeTest, TheSizePolicyFollowsTheSpecAndTheDataPlane) {
  v1::ValidationSpec spec;
  ASSERT_TRUE(NormalizeValidationSpec(spec).ok());
  const SizePolicy nccl = SizePolicyFor(spec, true);
  EXPECT_FALSE(nccl.user_sweep);
  EXPECT_FALSE(nccl.user_iterations);
  EXPECT_EQ(nccl.sweep_max_bytes, int64_t{1} << 30);
  EXPECT_EQ(SizePolicyFor(spec, false).sweep_max_bytes, int64_t{64} << 20);
  spec.set_max_bytes(1024);
  spec.set_iterations(2);
  const SizePolicy user = SizePolicyFor(spec, true);
  EXPECT_TRUE(user.user_sweep);
  EXPECT_EQ(user.user_max_bytes, 1024);
  EXPECT_TRUE(user.user_iterations);
  v1::ValidationSpec lone_min;
  lone_min.set_min_bytes(1024);
  EXPECT_THAT(std::string(NormalizeValidationSpec(lone_min).message()),
              ::testing::StartsWith("max_bytes: 0 (each test at its plateau)"));
  v1::ValidationSpec inverted;
  inverted.set_min_bytes(2048);
  inverted.set_max_bytes(1024);
  EXPECT_THAT(std::string(NormalizeValidationSpec(inverted).message()),
              ::testing::StartsWith("max_bytes: 1024 is smaller than min_bytes 2048"));
  // A soak as long as the whole validation's deadline would never end.
  v1::ValidationSpec soak;
  soak.set_timeout_ms(60'000);
  soak.set_soak_ms(60'000);
  EXPECT_THAT(std::string(NormalizeValidationSpec(soak).message()),
              ::testing::StartsWith("soak_ms: 60000 is not less than the validation's timeout_ms"));
  soak.set_soak_ms(-1);
  EXPECT_THAT(std::string(NormalizeValidationSpec(soak).message()),
              ::testing::StartsWith("soak_ms: must not be negative"));
  // Gloo runs no NCCL figure, and NCCL no site Gloo figure.
  v1::ValidationSpec normalized;
  ASSERT_TRUE(NormalizeValidationSpec(normalized).ok());
  absl::StatusOr<Options> gloo = OptionsFromSpec(normalized, test_baselines(), false);
  ASSERT_TRUE(gloo.ok()) << gloo.status();
  EXPECT_TRUE(gloo->gloo);
  EXPECT_TRUE(gloo->baselines.intra.empty());
  EXPECT_EQ(gloo->baselines.gloo_pairs.size(), 1u);
  absl::StatusOr<Options> with_nccl = OptionsFromSpec(normalized, test_baselines(), true);
  ASSERT_TRUE(with_nccl.ok()) << with_nccl.status();
  EXPECT_FALSE(with_nccl->gloo);
  EXPECT_EQ(with_nccl->baselines.intra.size(), 1u);
  EXPECT_TRUE(with_nccl->baselines.gloo_pairs.empty());
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
