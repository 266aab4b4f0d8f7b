// The stall limit of a size (coordinator/core/collective_tests/stall_watch.h):
// the rule's edges on its own, then a StallWatch fed reports on a fake
// timeline.

#include "coordinator/core/collective_tests/stall_watch.h"

#include <optional>

#include "absl/time/time.h"
#include "agent/core/agent_core_config.h"
#include "coordinator/config.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/coordinator_test_util.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;

constexpr absl::Duration kStallFloor = kDefaultStallFloor;

// A Gloo size in its timed calls: 24 calls (10 timed per variant), 5 done.
StallInputs TimedCalls(double call_us) {
  StallInputs in;
  in.fewest_calls = 5;
  in.calls_planned = 24;
  in.iterations = 10;
  in.calls_one_by_one = true;
  in.call_us = call_us;
  return in;
}

TEST(StallLimitTest, ASizesFirstCallInFlightIsNeverJudged) {
  // NCCL connects on the first call of an algorithm: seconds on a big
  // fleet, and only the step deadline judges it.
  StallInputs in = TimedCalls(1000);
  in.fewest_calls = 0;
  EXPECT_FALSE(StallLimit(in, kStallFloor).has_value());
  // The in-place variant's untimed call (after 12) runs on what the first
  // call connected: judged (a path once died there and waited 120 s).
  for (const int done : {1, 11, 12, 13, 23}) {
    in.fewest_calls = done;
    EXPECT_TRUE(StallLimit(in, kStallFloor).has_value()) << done;
  }
  EXPECT_TRUE(NextCallWarmsUp(0, true));
  EXPECT_FALSE(NextCallWarmsUp(12, true));
  // Gloo connected every pair at init: its first call is judged too.
  EXPECT_FALSE(NextCallWarmsUp(0, false));
  in.fewest_calls = 0;
  in.connects_lazily = false;
  EXPECT_TRUE(StallLimit(in, kStallFloor).has_value());
}

TEST(StallLimitTest, NothingReportedOrMeasuredIsNotJudged) {
  StallInputs in = TimedCalls(0);  // no timed call, no earlier size
  EXPECT_FALSE(StallLimit(in, kStallFloor).has_value());
  in = TimedCalls(1000);
  in.calls_planned = 0;  // a rank has not reported yet
  EXPECT_FALSE(StallLimit(in, kStallFloor).has_value());
}

TEST(StallLimitTest, FastCallsGetTheFloor) {
  EXPECT_EQ(StallLimit(TimedCalls(15'000), kStallFloor), kStallFloor);
}

TEST(StallLimitTest, SlowCallsGetFourOfThem) {
  // 100 Mbit/s: a 64 MiB all_reduce call takes seconds; only 4 calls
  // without news are a stall.
  EXPECT_EQ(StallLimit(TimedCalls(2'500'000), kStallFloor), absl::Seconds(10));
}

TEST(StallLimitTest, ABackendThatReportsWholeBatchesWaitsFourBatches) {
  StallInputs in = TimedCalls(100'000);
  in.calls_one_by_one = false;  // NCCL: the timed batch completes as a whole
  EXPECT_EQ(StallLimit(in, kStallFloor), absl::Seconds(4));  // 4 x 1 s: the floor
  in.call_us = 200'000;                                      // 10 calls of 0.2 s a batch
  EXPECT_EQ(StallLimit(in, kStallFloor), absl::Seconds(8));
}

TEST(StallLimitTest, TheReportsOwnCadenceBoundsItFromBelow) {
  // An agent whose workers heartbeat every 5 s reports every 5 s.
  StallInputs in = TimedCalls(1000);
  in.longest_gap = absl::Seconds(5);
  EXPECT_EQ(StallLimit(in, kStallFloor), absl::Milliseconds(7500));
}

// TCP's retransmission back-off on a lossy link (RTO 200 ms, doubling):
// one segment lost 4 times in a row stalls every rank 3.0 s, then the call
// completes and is reported within a worker heartbeat (250 ms): under the
// floor. Lost 5 times (0.03^5 at 3 % loss) it stalls 6.2 s: named, the
// rare case docs/RELIABILITY.md counts.
TEST(StallLimitTest, FourLossesInARowOfOneSegmentDoNotTripTheDefaultFloor) {
  const auto back_off = [](int losses) {
    absl::Duration stall;
    for (int i = 0; i < losses; ++i) stall += absl::Milliseconds(200) * (1 << i);
    return stall;
  };
  const absl::Duration report_period = absl::Milliseconds(250);
  EXPECT_EQ(back_off(4), absl::Seconds(3));
  EXPECT_LT(back_off(4) + 2 * report_period, *StallLimit(TimedCalls(15'000), kStallFloor));
  EXPECT_GT(back_off(5), *StallLimit(TimedCalls(15'000), kStallFloor));
}

// The shipped defaults name the part at fault, not a part it holds up
// (docs/DESIGN.md, "Which fires first"). A stopped rank: its agent names it
// within the hang timeout, a tenth of it (the check) and one heartbeat; its
// peers' last report may be a heartbeat before the stop, so their stall
// comes a heartbeat before the floor at the earliest.
TEST(StallLimitTest, AStoppedRankIsNamedByItsAgentBeforeItsPeersStall) {
  const agent::AgentCoreConfig agent;
  const absl::Duration check = std::min(agent.worker_hang_timeout / 10, absl::Seconds(1));
  const absl::Duration named = agent.worker_hang_timeout + check + agent.worker_heartbeat_period;
  const absl::Duration earliest_stall = kDefaultStallFloor - agent.worker_heartbeat_period;
  EXPECT_LE(named + absl::Milliseconds(500), earliest_stall);
  // And within the 5 s, both.
  EXPECT_LE(named, absl::Seconds(5));
  EXPECT_LE(kDefaultStallFloor + agent.worker_heartbeat_period, absl::Milliseconds(4500));
}

// A frozen agent: the coordinator names its node within its deadline and one
// check (every period), before the agent's workers leave on their own
// (AgentSilenceLimit, agent/worker/worker_runtime.h: 5 s at the default
// worker heartbeat, counted from a reply at most a period before the
// freeze) and their peers' calls fail.
TEST(StallLimitTest, AFrozenAgentIsNamedBeforeItsWorkersLeave) {
  const CoordinatorConfig coordinator;
  const agent::AgentCoreConfig agent;
  const absl::Duration named =
      coordinator.heartbeat_period * (coordinator.heartbeat_miss_limit + 1);
  const absl::Duration workers_leave = absl::Seconds(5) - agent.worker_heartbeat_period;
  EXPECT_LE(named + absl::Milliseconds(500), workers_leave);
  EXPECT_LE(named, absl::Seconds(5));
}

class StallWatchTest : public ::testing::Test {
 protected:
  StallWatchTest() {
    report_.mutable_spec()->set_iterations(10);
    for (int r = 0; r < 4; ++r) report_.add_ranks()->set_rank(r);
    for (const int64_t bytes : {1 << 20, 2 << 20}) {
      PlannedSize& size = sweep_.steps.emplace_back();
      size.sweep_bytes = bytes;
      size.size_bytes = bytes;
      size.collective = v1::COLLECTIVE_ALL_REDUCE;
    }
  }

  static v1::IterationProgress Calls(int step, int done, int timed = 0, bool waiting = true) {
    v1::IterationProgress p;
    p.set_step(step);
    p.set_calls_done(done);
    p.set_calls_planned(24);
    p.set_timed_calls(timed);
    p.set_waiting_on_peers(waiting);
    return p;
  }
  // Step `step` from t0_, every rank but `except` waiting in a call.
  void Enter(int step, int except = -1) {
    watch_.EnterStep(step, t0_);
    for (int r = 0; r < 4; ++r) {
      if (r != except) watch_.Heard(r, Calls(step, 1), t0_, false);
    }
  }
  static SizeProgressWatch::Summary At(int fewest, double call_us = 0) {
    SizeProgressWatch::Summary s;
    s.fewest_calls = fewest;
    s.calls_planned = 24;
    s.slowest_call_us = call_us;
    return s;
  }

  const absl::Time t0_ = absl::FromUnixSeconds(1'000'000);
  v1::TestReport report_;
  TestSweep sweep_;
  StallWatch watch_{report_, sweep_, kStallFloor};
};

TEST_F(StallWatchTest, TheDeadlineRunsFromTheLastNews) {
  Enter(0);
  watch_.Heard(0, Calls(0, 3, 2), t0_ + absl::Seconds(1), true);
  EXPECT_EQ(watch_.Deadline(At(3, 15'000)), t0_ + absl::Seconds(1) + kStallFloor);
  watch_.MovedOn(0, t0_ + absl::Seconds(2));  // rank 0 finished the size
  EXPECT_EQ(watch_.Deadline(At(3, 15'000)), t0_ + absl::Seconds(2) + kStallFloor);
  EXPECT_FALSE(watch_.Deadline(At(0, 15'000)).has_value());  // a rank not started
}

TEST_F(StallWatchTest, ARankInItsOwnWorkStopsTheRuleUntilItWaitsOnItsPeers) {
  Enter(0, /*except=*/2);
  EXPECT_FALSE(watch_.Deadline(At(3, 15'000)).has_value());
  watch_.Heard(2, Calls(0, 3, 2, /*waiting=*/false), t0_ + absl::Seconds(1), true);
  EXPECT_FALSE(watch_.Deadline(At(3, 15'000)).has_value());  // filling its buffers
  watch_.Heard(2, Calls(0, 3, 2), t0_ + absl::Seconds(2), false);
  EXPECT_EQ(watch_.Deadline(At(3, 15'000)), t0_ + absl::Seconds(1) + kStallFloor);
  watch_.MovedOn(2, t0_ + absl::Seconds(3));  // done with the size: waits in the next
  EXPECT_EQ(watch_.Deadline(At(3, 15'000)), t0_ + absl::Seconds(3) + kStallFloor);
}

TEST_F(StallWatchTest, TheFirstSizeWithoutATimedCallIsNotJudged) {
  Enter(0);
  watch_.Heard(0, Calls(0, 1), t0_ + absl::Seconds(1), true);
  EXPECT_FALSE(watch_.Deadline(At(1)).has_value());
}

TEST_F(StallWatchTest, ALaterSizeExpectsThePreviousSizesCallScaledByBytes) {
  v1::SizeResult& row = *report_.add_results();
  row.set_size_bytes(1 << 20);
  row.mutable_out_of_place()->set_time_us(800'000);
  row.mutable_in_place()->set_time_us(1'000'000);
  Enter(1);
  // NCCL: nothing timed one by one, so a batch of 10 calls of ~2 s.
  EXPECT_EQ(watch_.Deadline(At(1)), t0_ + absl::Seconds(80));
  // Another collective's row predicts nothing of this one.
  sweep_.steps[1].collective = v1::COLLECTIVE_BROADCAST;
  EXPECT_FALSE(watch_.Deadline(At(1)).has_value());
}

TEST_F(StallWatchTest, TheCadenceIsMeasuredBetweenOneRanksReportsButNotAcrossTheWarmUp) {
  Enter(0);
  // 10 s held the size's first call: no cadence.
  watch_.Heard(1, Calls(0, 2, 1), t0_ + absl::Seconds(10), true);
  watch_.Heard(1, Calls(0, 4, 3), t0_ + absl::Seconds(13), true);  // 3 s between reports
  EXPECT_EQ(watch_.Deadline(At(4, 1000)), t0_ + absl::Seconds(13) + absl::Milliseconds(4500));
  // The next size starts afresh: its first report holds its warm-up.
  watch_.EnterStep(1, t0_ + absl::Seconds(14));
  for (int r = 0; r < 4; ++r) watch_.Heard(r, Calls(1, 0), t0_ + absl::Seconds(14), false);
  watch_.Heard(1, Calls(1, 1), t0_ + absl::Seconds(34), true);
  EXPECT_EQ(watch_.Deadline(At(1, 1000)), t0_ + absl::Seconds(34) + absl::Milliseconds(4500));
}

TEST_F(StallWatchTest, ReportsOfAnotherStepAreNotNews) {
  Enter(1);
  watch_.Heard(0, Calls(0, 5, 4), t0_ + absl::Seconds(3), true);
  EXPECT_EQ(watch_.last_news(), t0_);
}

}  // namespace
}  // namespace eb::coordinator
