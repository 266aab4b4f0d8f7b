// SizeProgressWatch over many ranks: each report replaces the rank's last
// one in counted values (O(log ranks) a report), so the fewest calls, the
// slowest rank's rate and a rank that never reported are all read off
// without scanning the ranks.
#include "coordinator/core/collective_tests/size_progress.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::HasSubstr;

constexpr int kRanks = 1000;
constexpr int kPlanned = 44;

v1::IterationProgress Progress(int calls, int timed, double call_us) {
  v1::IterationProgress p;
  p.set_step(0);
  p.set_calls_done(calls);
  p.set_calls_planned(kPlanned);
  p.set_timed_calls(timed);
  p.set_timed_elapsed_us(static_cast<int64_t>(timed * call_us));
  return p;
}

class SizeProgressWatchTest : public ::testing::Test {
 protected:
  SizeProgressWatchTest() {
    report_.mutable_spec()->set_data_type(v1::DATA_TYPE_FLOAT);
    for (int r = 0; r < kRanks; ++r) report_.add_ranks()->set_rank(r);
    sweep_.steps.push_back({1 << 20, 1 << 20, 1 << 18, v1::COLLECTIVE_ALL_REDUCE});
  }
  v1::TestReport report_;
  TestSweep sweep_;
  const absl::Time start_ = absl::FromUnixSeconds(1000);
};

TEST_F(SizeProgressWatchTest, ASilentRankHoldsTheFewestCallsAtZero) {
  SizeProgressWatch watch(report_, sweep_, absl::Seconds(10));
  watch.EnterStep(0, start_);
  for (int r = 1; r < kRanks; ++r) ASSERT_TRUE(watch.Record(r, Progress(10, 8, 1000)));
  // Rank 0 never reported: no size can be judged a measurement yet.
  EXPECT_FALSE(watch.Overran(start_ + absl::Seconds(11)).has_value());
  EXPECT_FALSE(watch.PredictedOverrun(start_ + absl::Seconds(1)).has_value());
}

TEST_F(SizeProgressWatchTest, TheSlowestRanksLatestRateDecidesAndReplacesItsOldOne) {
  SizeProgressWatch watch(report_, sweep_, absl::Seconds(10));
  watch.EnterStep(0, start_);
  for (int r = 0; r < kRanks; ++r) {
    ASSERT_TRUE(watch.Record(r, Progress(10, 8, r == 500 ? 2000 : 1000)));
  }
  // 1 s in, 34 calls left at 2 ms: it fits.
  EXPECT_FALSE(watch.PredictedOverrun(start_ + absl::Seconds(1)).has_value());
  // Rank 500 slows to 400 ms a call: 34 x 0.4 s more does not fit in 10 s.
  ASSERT_TRUE(watch.Record(500, Progress(11, 9, 400'000)));
  std::optional<v1::Failure> slow = watch.PredictedOverrun(start_ + absl::Seconds(1));
  ASSERT_TRUE(slow.has_value());
  EXPECT_EQ(slow->kind(), v1::FAILURE_KIND_TOO_SLOW);
  EXPECT_THAT(slow->message(), HasSubstr("10 of 44 calls done"));
  EXPECT_THAT(slow->message(), HasSubstr("at 400000 us a call"));
  // It recovers: its slow rate is forgotten, not kept as a maximum.
  ASSERT_TRUE(watch.Record(500, Progress(12, 10, 1000)));
  EXPECT_FALSE(watch.PredictedOverrun(start_ + absl::Seconds(1)).has_value());
  // A stale or repeated report is no news and changes nothing.
  EXPECT_FALSE(watch.Record(500, Progress(12, 10, 400'000)));
  EXPECT_FALSE(watch.PredictedOverrun(start_ + absl::Seconds(1)).has_value());
}

TEST_F(SizeProgressWatchTest, ANewStepForgetsThePreviousOne) {
  sweep_.steps.push_back(sweep_.steps.front());
  SizeProgressWatch watch(report_, sweep_, absl::Seconds(10));
  watch.EnterStep(0, start_);
  for (int r = 0; r < kRanks; ++r) ASSERT_TRUE(watch.Record(r, Progress(10, 8, 400'000)));
  ASSERT_TRUE(watch.PredictedOverrun(start_).has_value());
  watch.EnterStep(1, start_ + absl::Seconds(2));
  EXPECT_FALSE(watch.PredictedOverrun(start_ + absl::Seconds(2)).has_value());
  // A late report of step 0 is ignored.
  EXPECT_FALSE(watch.Record(3, Progress(12, 10, 400'000)));
  EXPECT_FALSE(watch.Overran(start_ + absl::Seconds(13)).has_value());
}

// The flaky case of FaultInjectionTest under ASan: the first calls of a size
// of 400,002 calls ran at 16 ms (a process still warming up) and predicted
// 6,480 s against a 1 h deadline. A few calls of many predict nothing until
// a tenth of the calls or of the deadline is behind the size; then they do.
TEST_F(SizeProgressWatchTest, TheFirstCallsOfALongSizePredictNothingUntilATenthIsBehindIt) {
  constexpr int kLong = 400'002;
  SizeProgressWatch watch(report_, sweep_, absl::Hours(1));
  watch.EnterStep(0, start_);
  for (int r = 0; r < kRanks; ++r) {
    v1::IterationProgress p = Progress(4, 3, 16'000);
    p.set_calls_planned(kLong);
    ASSERT_TRUE(watch.Record(r, p));
  }
  EXPECT_FALSE(watch.PredictedOverrun(start_ + absl::Seconds(1)).has_value());
  EXPECT_FALSE(watch.PredictedOverrun(start_ + absl::Minutes(5)).has_value());
  // Past a tenth of the hour at the same rate: the size cannot fit.
  std::optional<v1::Failure> slow = watch.PredictedOverrun(start_ + absl::Minutes(7));
  ASSERT_TRUE(slow.has_value());
  EXPECT_EQ(slow->kind(), v1::FAILURE_KIND_TOO_SLOW);
  // A tenth of the calls done is enough too, whatever the time.
  SizeProgressWatch by_calls(report_, sweep_, absl::Hours(1));
  by_calls.EnterStep(0, start_);
  for (int r = 0; r < kRanks; ++r) {
    v1::IterationProgress p = Progress(kLong / 10 + 1, kLong / 10, 16'000);
    p.set_calls_planned(kLong);
    ASSERT_TRUE(by_calls.Record(r, p));
  }
  EXPECT_TRUE(by_calls.PredictedOverrun(start_ + absl::Seconds(1)).has_value());
}

}  // namespace
}  // namespace eb::coordinator
