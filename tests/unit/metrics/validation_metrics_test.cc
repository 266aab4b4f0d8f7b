// ValidationMetrics: each node's last verdict, bad-validation count and
// repeat-offender state as a real validation history records them, and each
// validation's final state, "found something bad" and duration. The scrape
// text is checked through the strict parser.

#include "coordinator/metrics/validation_metrics.h"

#include <map>
#include <string>
#include <vector>

#include "coordinator/history/in_memory_validation_history.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testutil/prometheus_text.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;
using ::eb::testing::ParsePrometheusText;
using ::eb::testing::PromLabels;
using ::eb::testing::PromText;
using ::testing::IsEmpty;

// A finished validation of `verdicts` (node -> verdict), from `start_ms`
// to `end_ms`.
v1::ValidationReport EndedValidation(const std::string& id, v1::ValidationState state,
                                     const std::map<std::string, v1::Verdict>& verdicts,
                                     int64_t start_ms, int64_t end_ms) {
  v1::ValidationReport report;
  report.set_validation_id(id);
  report.set_state(state);
  report.set_start_time_unix_ms(start_ms);
  report.set_end_time_unix_ms(end_ms);
  for (const auto& [node, verdict] : verdicts) {
    v1::NodeVerdict& entry = *report.add_nodes();
    entry.set_node_name(node);
    entry.set_verdict(verdict);
    if (verdict == v1::VERDICT_DEGRADED || verdict == v1::VERDICT_FAILED) report.set_any_bad(true);
  }
  return report;
}

class ValidationMetricsTest : public ::testing::Test {
 protected:
  // What the coordinator does when a validation ends: the history records
  // it, then the metrics count it.
  void End(const v1::ValidationReport& report) {
    ASSERT_TRUE(history_.Save(report).ok());
    metrics_.OnValidationFinished(report);
  }

  // ValidationManager::LastVerdicts over the history, then a scrape.
  PromText Scrape(int running = 0) {
    std::map<std::string, NodeVerdictRecord> by_node;
    const std::vector<NodeVerdictRecord> records = history_.LastVerdicts().value();
    for (const NodeVerdictRecord& record : records) {
      by_node[record.node_name] = record;
    }
    metrics_.Update(by_node, running);
    auto parsed = ParsePrometheusText(registry_.Render());
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    return parsed.ok() ? *parsed : PromText{};
  }

  InMemoryValidationHistory history_;
  common::MetricsRegistry registry_;
  ValidationMetrics metrics_{registry_};
};

TEST_F(ValidationMetricsTest, BeforeAnyValidationEveryStateIsZeroAndNoNodeIsListed) {
  const PromText text = Scrape();
  EXPECT_EQ(text.Series("ebnccl_validations_total").size(), 6u);
  for (const char* state :
       {"done", "cancelled", "timed_out", "failed", "interrupted", "preempted"}) {
    EXPECT_EQ(text.Value("ebnccl_validations_total", {{"state", state}}), 0) << state;
  }
  EXPECT_EQ(text.Value("ebnccl_validations_bad_total"), 0);
  EXPECT_EQ(text.Value("ebnccl_validations_running"), 0);
  for (const char* family :
       {"ebnccl_node_validation_verdict", "ebnccl_node_repeat_offender",
        "ebnccl_node_bad_validations", "ebnccl_validation_duration_seconds_count",
        "ebnccl_validation_last_end_timestamp_seconds"}) {
    EXPECT_THAT(text.Series(family), IsEmpty()) << family;
  }
}

// After a restart the counters start again at 0, but the history still
// dates the last validation (the alert on its age must not fire).
TEST_F(ValidationMetricsTest, TheLastValidationIsDatedFromTheHistoryAfterARestart) {
  ASSERT_TRUE(history_
                  .Save(EndedValidation("v-old", v1::VALIDATION_STATE_DONE,
                                        {{"host0", v1::VERDICT_HEALTHY}}, 1'000'000, 1'090'000))
                  .ok());
  PromText text = Scrape();
  EXPECT_EQ(text.Value("ebnccl_validation_last_end_timestamp_seconds"), 1090);
  EXPECT_EQ(text.Value("ebnccl_validations_total", {{"state", "done"}}), 0);
  // One cancelled before any verdict: newer, and dates it.
  End(EndedValidation("v-new", v1::VALIDATION_STATE_CANCELLED, {}, 2'000'000, 2'001'000));
  text = Scrape();
  EXPECT_EQ(text.Value("ebnccl_validation_last_end_timestamp_seconds"), 2001);
}

TEST_F(ValidationMetricsTest, NodeVerdictsAndRepeatOffendersFollowTheHistory) {
  End(EndedValidation("v-1", v1::VALIDATION_STATE_DONE,
                      {{"host0", v1::VERDICT_FAILED}, {"host1", v1::VERDICT_HEALTHY}}, 1'000'000,
                      1'090'000));
  PromText text = Scrape(/*running=*/1);
  EXPECT_EQ(text.Value("ebnccl_validations_running"), 1);
  EXPECT_EQ(
      text.Value("ebnccl_node_validation_verdict", {{"node", "host0"}, {"verdict", "failed"}}), 1);
  EXPECT_EQ(
      text.Value("ebnccl_node_validation_verdict", {{"node", "host0"}, {"verdict", "healthy"}}), 0);
  // A state set: every verdict of every judged node.
  EXPECT_EQ(text.Series("ebnccl_node_validation_verdict").size(), 10u);
  EXPECT_EQ(text.Value("ebnccl_node_bad_validations", {{"node", "host0"}}), 1);
  EXPECT_EQ(text.Value("ebnccl_node_repeat_offender", {{"node", "host0"}}), 0);
  EXPECT_EQ(text.Value("ebnccl_node_validation_timestamp_seconds", {{"node", "host1"}}), 1090);

  // Failed twice: a repeat offender, also after a healthy verdict (the
  // count is of validations that found it bad, as `ebctl nodes` shows).
  End(EndedValidation("v-2", v1::VALIDATION_STATE_DONE, {{"host0", v1::VERDICT_DEGRADED}},
                      2'000'000, 2'060'000));
  End(EndedValidation("v-3", v1::VALIDATION_STATE_DONE, {{"host0", v1::VERDICT_HEALTHY}}, 3'000'000,
                      3'060'000));
  text = Scrape();
  EXPECT_EQ(
      text.Value("ebnccl_node_validation_verdict", {{"node", "host0"}, {"verdict", "healthy"}}), 1);
  EXPECT_EQ(text.Value("ebnccl_node_bad_validations", {{"node", "host0"}}), 2);
  EXPECT_EQ(text.Value("ebnccl_node_repeat_offender", {{"node", "host0"}}), 1);
  EXPECT_EQ(text.Value("ebnccl_node_repeat_offender", {{"node", "host1"}}), 0);
  EXPECT_EQ(text.Value("ebnccl_validations_running"), 0);
}

TEST_F(ValidationMetricsTest, EachValidationCountsItsStateBadnessAndDuration) {
  End(EndedValidation("v-1", v1::VALIDATION_STATE_DONE, {{"host0", v1::VERDICT_FAILED}}, 1'000'000,
                      1'090'000));
  End(EndedValidation("v-2", v1::VALIDATION_STATE_DONE, {{"host0", v1::VERDICT_HEALTHY}}, 2'000'000,
                      2'030'000));
  End(EndedValidation("v-3", v1::VALIDATION_STATE_CANCELLED, {}, 3'000'000, 3'005'000));
  const PromText text = Scrape();
  EXPECT_EQ(text.Value("ebnccl_validations_total", {{"state", "done"}}), 2);
  EXPECT_EQ(text.Value("ebnccl_validations_total", {{"state", "cancelled"}}), 1);
  EXPECT_EQ(text.Value("ebnccl_validations_total", {{"state", "failed"}}), 0);
  EXPECT_EQ(text.Value("ebnccl_validations_bad_total"), 1);
  EXPECT_EQ(text.Value("ebnccl_validation_duration_seconds_count", {{"state", "done"}}), 2);
  EXPECT_EQ(text.Value("ebnccl_validation_duration_seconds_sum", {{"state", "done"}}), 120);
  EXPECT_EQ(
      text.Value("ebnccl_validation_duration_seconds_bucket", {{"state", "done"}, {"le", "60"}}),
      1);
  EXPECT_EQ(text.Value("ebnccl_validation_duration_seconds_count", {{"state", "cancelled"}}), 1);
  EXPECT_EQ(text.Value("ebnccl_validation_last_end_timestamp_seconds"), 3005);
}

TEST_F(ValidationMetricsTest, RunningValidationsAreNotCounted) {
  v1::ValidationReport running;
  running.set_validation_id("v-run");
  running.set_state(v1::VALIDATION_STATE_RUNNING);
  metrics_.OnValidationFinished(running);
  const PromText text = Scrape();
  for (const auto& [labels, value] : text.Series("ebnccl_validations_total")) EXPECT_EQ(value, 0);
  EXPECT_THAT(text.Series("ebnccl_validation_duration_seconds_count"), IsEmpty());
}

}  // namespace
}  // namespace eb::coordinator
