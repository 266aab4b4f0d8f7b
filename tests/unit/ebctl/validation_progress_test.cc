// The progress of a validation on stderr (output/validation_progress.h,
// issue 33 item 3): off a terminal plain timestamped lines (round k started
// and ended, tests done of those planned, elapsed); on a terminal the round,
// the elapsed time and an estimate. A fake clock, never a sleep.

#include "coordinator/ebctl/output/validation_progress.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"

namespace eb::ebctl {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// 2030-01-15T08:00:00Z
constexpr int64_t kStartSeconds = 1'894'694'400;

v1::ValidationEvent Accepted() {
  v1::ValidationEvent event;
  v1::ValidationReport& r = *event.mutable_accepted();
  r.set_validation_id("v-1");
  r.add_nodes()->set_node_name("a");
  r.set_start_time_unix_ms(kStartSeconds * 1000);
  return event;
}

v1::ValidationEvent RoundStarted(int number, v1::TestKind kind, int tests) {
  v1::ValidationEvent event;
  v1::ValidationRound& r = *event.mutable_round_started();
  r.set_number(number);
  r.set_kind(kind);
  r.set_suite_round(number);
  for (int k = 0; k < tests; ++k) r.add_tests()->add_node_names(std::string(1, char('a' + k)));
  return event;
}

v1::ValidationEvent TestFinished(const std::string& node, v1::Outcome outcome) {
  v1::ValidationEvent event;
  v1::ValidationTest& t = *event.mutable_test_finished();
  t.set_test_id("t-" + node);
  t.add_node_names(node);
  t.set_outcome(outcome);
  t.set_busbw_gbps(10);
  return event;
}

v1::ValidationEvent Finished() {
  v1::ValidationEvent event;
  event.mutable_finished()->set_validation_id("v-1");
  event.mutable_finished()->set_state(v1::VALIDATION_STATE_DONE);
  event.mutable_finished()->add_rounds();
  return event;
}

TEST(ProgressStyleTest, AutoFollowsTheTerminalAlwaysLogsNeverIsSilent) {
  EXPECT_EQ(*ProgressStyleFor("auto", true), ProgressStyle::kTerminal);
  EXPECT_EQ(*ProgressStyleFor("auto", false), ProgressStyle::kLog);
  EXPECT_EQ(*ProgressStyleFor("always", true), ProgressStyle::kLog);
  EXPECT_EQ(*ProgressStyleFor("never", false), ProgressStyle::kNone);
  absl::StatusOr<ProgressStyle> bad = ProgressStyleFor("sometimes", false);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), StartsWith("--progress: "));
}

TEST(FormatElapsedTest, SecondsMinutesHours) {
  EXPECT_EQ(FormatElapsed(absl::Seconds(45)), "45s");
  EXPECT_EQ(FormatElapsed(absl::Seconds(65)), "1m05s");
  EXPECT_EQ(FormatElapsed(absl::Minutes(123)), "2h03m");
  EXPECT_EQ(FormatElapsed(-absl::Seconds(3)), "0s");
}

// The nightly service's journal: every line timestamped; rounds start and
// end; tests done of those planned; the elapsed time.
TEST(ValidationProgressTest, OffATerminalPlainTimestampedLines) {
  eb::testing::FakeClock fake(absl::FromUnixSeconds(kStartSeconds));
  ValidationProgress progress(ProgressStyle::kLog, fake);
  EXPECT_EQ(progress.OnEvent(Accepted()),
            "2030-01-15T08:00:00Z ebctl: validation v-1 over 1 node; elapsed 0s\n");
  fake.Advance(absl::Seconds(5));
  EXPECT_EQ(progress.OnEvent(RoundStarted(1, v1::TEST_KIND_INTRA, 2)),
            "2030-01-15T08:00:05Z ebctl: round 1 started (intra round 1): 2 tests: a, b; "
            "elapsed 5s\n");
  fake.Advance(absl::Seconds(30));
  EXPECT_EQ(progress.OnEvent(TestFinished("a", v1::OUTCOME_COMPLETED)),
            "2030-01-15T08:00:35Z ebctl:   t-a a: completed, 10 GB/s; round 1: 1 of 2 tests; 1 "
            "of 2 tests planned so far; elapsed 35s\n");
  fake.Advance(absl::Seconds(40));
  const std::string last = progress.OnEvent(TestFinished("b", v1::OUTCOME_INFRA_FAILURE));
  EXPECT_THAT(last, HasSubstr("2 of 2 tests planned so far; elapsed 1m15s\n"));
  EXPECT_THAT(last, HasSubstr("2030-01-15T08:01:15Z ebctl: round 1 ended after 1m10s: 2 tests "
                              "done, 1 not completed; elapsed 1m15s\n"));
  EXPECT_EQ(progress.OnEvent(Finished()),
            "2030-01-15T08:01:15Z ebctl: validation v-1 done after 1 round; elapsed 1m15s\n");
}

// A person at a terminal: the round, elapsed, and when the round should end
// judging by the earlier rounds of its kind.
TEST(ValidationProgressTest, OnATerminalTheRoundElapsedAndAnEstimate) {
  eb::testing::FakeClock fake(absl::FromUnixSeconds(kStartSeconds));
  ValidationProgress progress(ProgressStyle::kTerminal, fake);
  EXPECT_EQ(progress.OnEvent(Accepted()), "ebctl: validation v-1 over 1 node; elapsed 0s\n");
  // The first pair round: nothing to estimate from.
  EXPECT_EQ(progress.OnEvent(RoundStarted(1, v1::TEST_KIND_PAIR, 1)),
            "ebctl: round 1 (pair round 1): 1 test: a; elapsed 0s\n");
  fake.Advance(absl::Seconds(60));
  EXPECT_THAT(progress.OnEvent(TestFinished("a", v1::OUTCOME_COMPLETED)),
              HasSubstr("ebctl: round 1 ended after 1m00s: 1 test done; elapsed 1m00s\n"));
  // The second: about as long as the first.
  EXPECT_EQ(progress.OnEvent(RoundStarted(2, v1::TEST_KIND_PAIR, 2)),
            "ebctl: round 2 (pair round 2): 2 tests: a, b; elapsed 1m00s; round ends in "
            "~1m00s\n");
  fake.Advance(absl::Seconds(20));
  EXPECT_THAT(progress.OnEvent(TestFinished("a", v1::OUTCOME_COMPLETED)),
              HasSubstr("; round 2: 1 of 2 tests; 2 of 3 tests planned so far; elapsed 1m20s; "
                        "round ends in ~40s\n"));
  fake.Advance(absl::Seconds(60));
  EXPECT_THAT(progress.OnEvent(TestFinished("b", v1::OUTCOME_COMPLETED)),
              HasSubstr("ebctl: round 2 ended after 1m20s"));
}

// A round whose tests did not all report ends when the next one starts.
TEST(ValidationProgressTest, ARoundEndsWhenTheNextStarts) {
  eb::testing::FakeClock fake(absl::FromUnixSeconds(kStartSeconds));
  ValidationProgress progress(ProgressStyle::kLog, fake);
  progress.OnEvent(RoundStarted(1, v1::TEST_KIND_INTRA, 2));
  fake.Advance(absl::Seconds(10));
  const std::string next = progress.OnEvent(RoundStarted(2, v1::TEST_KIND_PAIR, 1));
  EXPECT_THAT(next, HasSubstr("round 1 ended after 10s: 0 tests done of 2; elapsed 10s\n"));
  EXPECT_THAT(next, HasSubstr("round 2 started (pair round 2)"));
}

TEST(ValidationProgressTest, NeverPrintsNothing) {
  eb::testing::FakeClock fake;
  ValidationProgress progress(ProgressStyle::kNone, fake);
  EXPECT_EQ(progress.OnEvent(Accepted()), "");
  EXPECT_EQ(progress.OnEvent(RoundStarted(1, v1::TEST_KIND_INTRA, 1)), "");
  EXPECT_EQ(progress.OnEvent(Finished()), "");
}

}  // namespace
}  // namespace eb::ebctl
