// The schedule probe's parsing and arithmetic (schedule_probe.h), with fake
// texts and instants; and the real probe's contract on this process.

#include "common/transport/schedule_probe.h"

#include <chrono>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::transport {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;
using Instant = ScheduleProbe::Instant;

TEST(ParseSchedstatTest, TheSecondFieldIsTheRunQueueWait) {
  absl::StatusOr<int64_t> ns = ParseSchedstatRunDelayNs("123456789 98765 42\n");
  ASSERT_TRUE(ns.ok()) << ns.status();
  EXPECT_EQ(*ns, 98765);
}

TEST(ParseSchedstatTest, RefusesWhatIsNotThreeWholeNumbers) {
  for (const char* text :
       {"", "1 2", "1 2 3 4", "1 x 3", "1 -2 3", "1 2.5 3", "1 99999999999999999999 3"}) {
    absl::StatusOr<int64_t> ns = ParseSchedstatRunDelayNs(text);
    EXPECT_EQ(ns.status().code(), absl::StatusCode::kInvalidArgument) << "'" << text << "'";
  }
  EXPECT_THAT(ParseSchedstatRunDelayNs("1 x 3").status().message(),
              HasSubstr("schedstat: '1 x 3' is not three whole numbers"));
}

class StalledWithinTest : public ::testing::Test {
 protected:
  Instant At(int ms) const { return t0_ + milliseconds(ms); }
  std::chrono::nanoseconds Stalled(const std::vector<StallInterval>& stalls, int last_tick,
                                   int begin, int end) const {
    return StalledWithin(stalls, At(last_tick), At(begin), At(end), milliseconds(1),
                         milliseconds(4));
  }
  const Instant t0_ = Instant() + std::chrono::hours(1);
};

TEST_F(StalledWithinTest, CountsOnlyTheOverlapWithTheWindow) {
  // Stopped 30 ms of every 100: stalls at 10-40 and 110-140; window 20-120.
  const std::vector<StallInterval> stalls = {{At(10), At(40)}, {At(110), At(140)}};
  EXPECT_EQ(Stalled(stalls, 141, 20, 120), milliseconds(30));
  EXPECT_EQ(Stalled(stalls, 141, 40, 110), milliseconds(0));
  // The ticker ran until just before the end: both stalls, nothing open.
  EXPECT_EQ(Stalled(stalls, 199, 0, 200), milliseconds(60));
}

TEST_F(StalledWithinTest, AStallTheTickerHasNotNotedYetCountsFromItsDueTime) {
  // Last tick at 50, window ends at 80: the ticker was due at 51 and has not
  // run (the process was resumed and this thread ran first).
  EXPECT_EQ(Stalled({}, 50, 0, 80), milliseconds(29));
  // Within the period and its slack: just a tick to come.
  EXPECT_EQ(Stalled({}, 50, 0, 54), milliseconds(0));
}

TEST(ProcessScheduleProbeTest, ARunningProcessIsNotStalled) {
  ProcessScheduleProbe probe;
  const ScheduleProbe::Mark begin = probe.Begin();
  volatile double sink = 0;
  for (int i = 0; i < 2000000; ++i) sink = sink + i;
  const ScheduleSample sample = probe.End(begin);
  EXPECT_GT(sample.wall_us, 0);
  EXPECT_GE(sample.stalled_us, 0);
  EXPECT_LE(sample.stalled_us, sample.wall_us);
  EXPECT_GT(sample.cpu_us, 0);  // the loop ran on this process's CPU time
  EXPECT_GE(sample.involuntary_switches, 0);
  EXPECT_GE(sample.run_delay_us, 0);
}

}  // namespace
}  // namespace eb::transport
