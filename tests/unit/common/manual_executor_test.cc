// The ManualExecutor every no-sleep unit test relies on.

#include "tests/fakes/manual_executor.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"

namespace eb::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class ManualExecutorTest : public ::testing::Test {
 protected:
  ManualExecutorTest() : start_(clock_.Now()), executor_(clock_) {}

  // Appends `name` and the time since the start, in ms, when run.
  std::function<void()> Record(const std::string& name) {
    return [this, name] {
      ran_.push_back(name + "@" + std::to_string(absl::ToInt64Milliseconds(clock_.Now() - start_)));
    };
  }

  FakeClock clock_;
  const absl::Time start_;
  ManualExecutor executor_;
  std::vector<std::string> ran_;
};

TEST_F(ManualExecutorTest, FakeClockMovesOnlyWhenAdvanced) {
  EXPECT_EQ(clock_.Now(), start_);
  EXPECT_EQ(clock_.Now(), start_);
  clock_.Advance(absl::Milliseconds(1500));
  EXPECT_EQ(clock_.Now() - start_, absl::Milliseconds(1500));
}

TEST_F(ManualExecutorTest, PostRunsNothingUntilRunUntilIdleThenInOrder) {
  executor_.Post(Record("a"));
  executor_.Post(Record("b"));
  executor_.Post(Record("c"));
  EXPECT_THAT(ran_, IsEmpty());
  EXPECT_EQ(executor_.RunUntilIdle(), 3);
  EXPECT_THAT(ran_, ElementsAre("a@0", "b@0", "c@0"));
  EXPECT_EQ(executor_.RunUntilIdle(), 0);
  EXPECT_TRUE(executor_.IsCurrent());
}

TEST_F(ManualExecutorTest, CallbacksPostedByCallbacksRunInTheSamePass) {
  executor_.Post([this] {
    ran_.emplace_back("outer");
    executor_.Post(Record("inner"));
    executor_.PostAfter(absl::ZeroDuration(), Record("due-now"));
  });
  EXPECT_EQ(executor_.RunUntilIdle(), 3);
  EXPECT_THAT(ran_, ElementsAre("outer", "inner@0", "due-now@0"));
}

TEST_F(ManualExecutorTest, TimersFireInDeadlineOrderAtTheirOwnTime) {
  executor_.PostAfter(absl::Milliseconds(300), Record("c"));
  executor_.PostAfter(absl::Milliseconds(100), Record("a"));
  executor_.PostAfter(absl::Milliseconds(200), Record("b1"));
  executor_.PostAfter(absl::Milliseconds(200), Record("b2"));  // Same deadline: post order.
  EXPECT_EQ(executor_.pending_timers(), 4u);
  EXPECT_EQ(executor_.RunUntilIdle(), 0);

  executor_.AdvanceTime(absl::Milliseconds(99));
  EXPECT_THAT(ran_, IsEmpty());
  executor_.AdvanceTime(absl::Milliseconds(150));
  EXPECT_THAT(ran_, ElementsAre("a@100", "b1@200", "b2@200"));
  EXPECT_EQ(clock_.Now() - start_, absl::Milliseconds(249));
  executor_.AdvanceTime(absl::Seconds(10));
  EXPECT_THAT(ran_, ElementsAre("a@100", "b1@200", "b2@200", "c@300"));
  EXPECT_EQ(clock_.Now() - start_, absl::Milliseconds(10249));
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

TEST_F(ManualExecutorTest, TimersArmedByTimersFireWithinTheSameAdvance) {
  // A periodic timer, like the supervisor's watchdog.
  std::function<void()> tick = [&] {
    ran_.push_back(std::to_string(absl::ToInt64Milliseconds(clock_.Now() - start_)));
    executor_.PostAfter(absl::Seconds(1), tick);
  };
  executor_.PostAfter(absl::Seconds(1), tick);
  executor_.AdvanceTime(absl::Milliseconds(3500));
  EXPECT_THAT(ran_, ElementsAre("1000", "2000", "3000"));
  EXPECT_EQ(executor_.pending_timers(), 1u);
}

TEST_F(ManualExecutorTest, CancelRemovesOnlyThatTimer) {
  const common::TimerId a = executor_.PostAfter(absl::Milliseconds(10), Record("a"));
  const common::TimerId b = executor_.PostAfter(absl::Milliseconds(10), Record("b"));
  EXPECT_NE(a, b);
  executor_.Cancel(a);
  executor_.Cancel(a);      // Twice: no-op.
  executor_.Cancel(12345);  // Unknown: no-op.
  executor_.AdvanceTime(absl::Milliseconds(10));
  EXPECT_THAT(ran_, ElementsAre("b@10"));
  executor_.Cancel(b);  // Already fired: no-op.
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

TEST_F(ManualExecutorTest, RunUntilIdleDoesNotMoveTime) {
  executor_.PostAfter(absl::Milliseconds(1), Record("later"));
  EXPECT_EQ(executor_.RunUntilIdle(), 0);
  EXPECT_EQ(clock_.Now(), start_);
  clock_.Advance(absl::Milliseconds(1));  // Moved by someone else.
  EXPECT_EQ(executor_.RunUntilIdle(), 1);
  EXPECT_THAT(ran_, ElementsAre("later@1"));
}

}  // namespace
}  // namespace eb::testing
