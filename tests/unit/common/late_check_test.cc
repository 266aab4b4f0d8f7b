// The rule of every timer that judges silence (common/time/late_check.h):
// a late check defers once, then judges; on time, it judges.

#include "common/time/late_check.h"

#include <optional>

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace eb::common {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'000'000);

TEST(LateCheckTest, OnTimeOrWithinTheToleranceJudges) {
  LateCheck check(absl::Seconds(1), absl::Seconds(2));
  check.Arm(kStart);
  EXPECT_EQ(check.Defer(kStart), std::nullopt);
  check.Arm(kStart + absl::Seconds(10));
  EXPECT_EQ(check.Defer(kStart + absl::Seconds(11)), std::nullopt);  // exactly the tolerance
}

TEST(LateCheckTest, ALateCheckWaitsTheSettleTimeOnceThenJudges) {
  LateCheck check(absl::Seconds(1), absl::Seconds(2));
  check.Arm(kStart);
  const absl::Time late = kStart + absl::Seconds(30);
  EXPECT_EQ(check.Lateness(late), absl::Seconds(30));
  EXPECT_EQ(check.Defer(late), absl::Seconds(2));
  // The deferred run is late again (the stall goes on): it judges anyway.
  EXPECT_EQ(check.Defer(late + absl::Seconds(40)), std::nullopt);
}

TEST(LateCheckTest, ALoopLateAtEveryCheckStillJudgesEveryOtherTime) {
  LateCheck check = LateCheck::ForPeriod(absl::Seconds(2));
  absl::Time now = kStart;
  int judged = 0;
  int checks = 0;
  for (; checks < 10; ++checks) {
    check.Arm(now + absl::Seconds(2));
    now += absl::Seconds(10);  // every period, 8 s late
    std::optional<absl::Duration> again = check.Defer(now);
    if (!again) {
      ++judged;
      continue;
    }
    // The deferred run, late too.
    now += *again + absl::Seconds(8);
    ASSERT_EQ(check.Defer(now), std::nullopt);
    ++judged;
  }
  EXPECT_EQ(judged, checks);
}

TEST(LateCheckTest, ANewDeadlineMayDeferAgain) {
  LateCheck check = LateCheck::ForDeadline();
  check.Arm(kStart);
  ASSERT_NE(check.Defer(kStart + absl::Seconds(5)), std::nullopt);
  ASSERT_EQ(check.Defer(kStart + absl::Seconds(7)), std::nullopt);
  check.Arm(kStart + absl::Seconds(20));
  EXPECT_EQ(check.Defer(kStart + absl::Seconds(25)), absl::Seconds(1));
}

TEST(LateCheckTest, AnUnarmedCheckIsNeverLate) {
  LateCheck check = LateCheck::ForDeadline();
  EXPECT_EQ(check.Defer(kStart), std::nullopt);
}

}  // namespace
}  // namespace eb::common
