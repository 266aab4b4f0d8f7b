// TestRun: the launch, init, step and total deadlines, driven by advancing
// the fake clock.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/test_run_fixture.h"

namespace eb::coordinator::test {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::AllOf;
using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr absl::Duration kEpsilon = absl::Milliseconds(1);

class TestRunDeadlineTest : public TestRunFixture {
 protected:
  std::vector<int> FailedRanks() const {
    std::vector<int> ranks;
    for (const v1::Failure& failure : report().failures()) ranks.push_back(failure.rank());
    return ranks;
  }
  std::vector<v1::FailureKind> FailureKinds() const {
    std::vector<v1::FailureKind> kinds;
    for (const v1::Failure& failure : report().failures()) kinds.push_back(failure.kind());
    return kinds;
  }
};

TEST_F(TestRunDeadlineTest, LaunchDeadlineNamesExactlyTheUnregisteredRanks) {
  CreateAndStart();
  Register(0);
  // A JOINED rank has registered too.
  Join(2);

  executor_.AdvanceTime(kLaunch - kEpsilon);
  EXPECT_EQ(report().state(), v1::TEST_STATE_LAUNCHING);
  EXPECT_EQ(report().failures_size(), 0);

  executor_.AdvanceTime(kEpsilon);
  EXPECT_EQ(report().state(), v1::TEST_STATE_STOPPING);
  EXPECT_THAT(FailedRanks(), ElementsAre(1, 3));
  EXPECT_THAT(FailureKinds(), Each(v1::FAILURE_KIND_WORKER_REGISTRATION_TIMEOUT));
  EXPECT_EQ(report().failures(0).node_name(), "node-a");
  EXPECT_EQ(report().failures(1).node_name(), "node-b");
  EXPECT_THAT(report().failures(0).message(), HasSubstr("did not start and register within 10s"));
  EXPECT_THAT(host_.StopNodes(), ElementsAre("node-a", "node-b"));

  AllNodesStopped();
  ASSERT_TRUE(run_->finished());
  EXPECT_EQ(report().state(), v1::TEST_STATE_TIMED_OUT);
  EXPECT_THAT(report().summary(),
              AllOf(StartsWith("rank 1 (node node-a, slot 1, GPU 1): "), HasSubstr("1 more")));
}

TEST_F(TestRunDeadlineTest, InitDeadlineRunsFromTheLastRegistrationAndNamesRanksThatDidNotJoin) {
  CreateAndStart();
  executor_.AdvanceTime(absl::Seconds(5));
  RegisterAll();
  ASSERT_EQ(report().state(), v1::TEST_STATE_INITIALIZING);
  Join(0);
  Join(3);

  // The launch deadline (10 s after start) no longer applies.
  executor_.AdvanceTime(kInit - kEpsilon);
  EXPECT_EQ(report().state(), v1::TEST_STATE_INITIALIZING);
  EXPECT_EQ(report().failures_size(), 0);

  executor_.AdvanceTime(kEpsilon);
  EXPECT_THAT(FailedRanks(), ElementsAre(1, 2));
  EXPECT_THAT(FailureKinds(), Each(v1::FAILURE_KIND_TIMEOUT));
  EXPECT_THAT(report().failures(0).message(),
              HasSubstr("did not join the communicator within 20s"));
  EXPECT_THAT(host_.StopNodes(), ElementsAre("node-a", "node-b"));

  AllNodesStopped();
  ASSERT_TRUE(run_->finished());
  EXPECT_EQ(report().state(), v1::TEST_STATE_TIMED_OUT);
}

TEST_F(TestRunDeadlineTest, StepDeadlineNamesTheRanksThatAreBehind) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  AllRanksDoSize(0);
  executor_.AdvanceTime(absl::Seconds(20));
  // Progress restarts the step deadline; rank 2 never reports 2 KiB.
  SizeDone(0, 1);
  SizeDone(1, 1);
  SizeDone(3, 1);

  executor_.AdvanceTime(kStep - kEpsilon);
  EXPECT_EQ(report().state(), v1::TEST_STATE_RUNNING);
  EXPECT_EQ(report().failures_size(), 0);

  executor_.AdvanceTime(kEpsilon);
  EXPECT_THAT(FailedRanks(), ElementsAre(2));
  EXPECT_THAT(FailureKinds(), ElementsAre(v1::FAILURE_KIND_TIMEOUT));
  EXPECT_THAT(report().failures(0).message(),
              AllOf(HasSubstr("no progress for 30s"), HasSubstr("stuck at size 2048")));

  AllNodesStopped();
  ASSERT_TRUE(run_->finished());
  EXPECT_EQ(report().state(), v1::TEST_STATE_TIMED_OUT);
  EXPECT_THAT(report().summary(), StartsWith("rank 2 (node node-b, slot 0, GPU 0): "));
  // The row every rank reported is kept.
  EXPECT_EQ(report().results_size(), 1);
}

// The coordinator itself did not run for longer than the step deadline
// while every rank went on: when it runs again, the deadline's timer fires
// before the ranks' queued progress is read. That check judges nothing
// (common/time/late_check.h); the progress then counts, and a rank that
// really sent nothing is still named, a second later.
TEST_F(TestRunDeadlineTest, AStalledCoordinatorDoesNotJudgeTheRanksProgress) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  AllRanksDoSize(0);
  clock_.Advance(kStep + absl::Seconds(10));  // the coordinator did not run
  executor_.RunUntilIdle();                   // the late deadline runs first
  EXPECT_EQ(report().failures_size(), 0);
  SizeDone(0, 1);  // then the progress that waited; rank 2 sent none
  SizeDone(1, 1);
  SizeDone(3, 1);
  executor_.AdvanceTime(kStep - kEpsilon);
  EXPECT_EQ(report().failures_size(), 0);
  EXPECT_EQ(report().state(), v1::TEST_STATE_RUNNING);
  executor_.AdvanceTime(kEpsilon);
  EXPECT_THAT(FailedRanks(), ElementsAre(2));
}

TEST_F(TestRunDeadlineTest, AStalledCoordinatorStillNamesASilentRankOneSecondLater) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  AllRanksDoSize(0);
  clock_.Advance(kStep + absl::Seconds(10));
  executor_.RunUntilIdle();
  EXPECT_EQ(report().failures_size(), 0);
  executor_.AdvanceTime(absl::Seconds(1));  // nothing came: judged now
  ASSERT_EQ(report().failures_size(), 1);
  EXPECT_THAT(report().failures(0).message(), HasSubstr("no rank made progress"));
}

TEST_F(TestRunDeadlineTest, StepDeadlineNamesRanksThatNeverSentFinished) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  for (int i = 0; i < 3; ++i) AllRanksDoSize(i);
  Finish(0);
  Finish(2);
  Finish(3);
  executor_.AdvanceTime(kStep);
  EXPECT_THAT(FailedRanks(), ElementsAre(1));
  EXPECT_THAT(report().failures(0).message(), HasSubstr("stuck at finishing"));
}

// Issue 16: a slow fabric is a measurement, not a timeout. 1 KiB took 1 s
// per call, so 2 KiB needs about 2 s x 14 calls: more than half the step
// deadline.
TEST_F(TestRunDeadlineTest, SizeTooBigForTheStepDeadlineEndsTheSweepAsTooSlow) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  AllRanksDoSize(0, /*time_us=*/1e6);
  executor_.AdvanceTime(kStep);
  ASSERT_EQ(report().failures_size(), 1);
  const v1::Failure& failure = report().failures(0);
  EXPECT_EQ(failure.kind(), v1::FAILURE_KIND_TOO_SLOW);
  // No rank is blamed for the fabric's speed.
  EXPECT_EQ(failure.rank(), -1);
  EXPECT_THAT(failure.message(),
              AllOf(HasSubstr("size 2048 B could not finish"), HasSubstr("needs about 28s"),
                    HasSubstr("1 of 3 sizes measured")));
  EXPECT_THAT(host_.StopNodes(), ElementsAre("node-a", "node-b"));
  AllNodesStopped();
  ASSERT_TRUE(run_->finished());
  // FAILED (exit 7 in ebctl), not TIMED_OUT; the measured row is kept.
  EXPECT_EQ(report().state(), v1::TEST_STATE_FAILED);
  EXPECT_EQ(report().results_size(), 1);
  EXPECT_GT(report().avg_busbw_gbps(), 0);
  EXPECT_EQ(report().summary(), failure.message());
}

// Issue 29: 1 KiB took 5 s per call, so 2 KiB needs about 10 s x 14 calls,
// more than the whole step deadline: the sweep stops as soon as every rank
// is in that size, without waiting the deadline out.
TEST_F(TestRunDeadlineTest, SizePredictedToMissTheStepDeadlineStopsAtOnce) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  AllRanksDoSize(0, /*time_us=*/5e6);
  ASSERT_EQ(report().failures_size(), 1);
  const v1::Failure& failure = report().failures(0);
  EXPECT_EQ(failure.kind(), v1::FAILURE_KIND_TOO_SLOW);
  EXPECT_EQ(failure.rank(), -1);
  EXPECT_THAT(failure.message(),
              AllOf(HasSubstr("size 2048 B would not finish"), HasSubstr("needs about 140s")));
  EXPECT_THAT(host_.StopNodes(), ElementsAre("node-a", "node-b"));
  AllNodesStopped();
  EXPECT_EQ(report().state(), v1::TEST_STATE_FAILED);
  EXPECT_EQ(report().results_size(), 1);
}

// Issue 29, progress by iteration: a size whose calls complete is not a
// hang. It cannot finish within the step deadline: at the deadline it is
// too slow, with the busbw of the calls done (what a validation grades).
// Its calls keep completing (a report every 3.5 s, inside the stall limit).
TEST_F(TestRunDeadlineTest, SizeThatProgressesButCannotFinishIsTooSlowWithTheBusbwOfItsCalls) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  AllRanksDoSize(0);
  executor_.AdvanceTime(absl::Seconds(20));
  // 3 of 14 calls, the 2 timed ones at 0.4 s each: 20 s + 4.4 s left fits.
  AllRanksProgress(1, 3, 2, 800'000);
  executor_.AdvanceTime(absl::Milliseconds(3500));
  AllRanksProgress(1, 6, 5, 2'000'000);  // 23.5 s + 3.2 s
  executor_.AdvanceTime(absl::Milliseconds(3500));
  AllRanksProgress(1, 9, 1, 400'000);  // in-place: 27 s + 2 s
  EXPECT_EQ(report().failures_size(), 0);
  executor_.AdvanceTime(absl::Seconds(3));
  ASSERT_EQ(report().failures_size(), 1);
  const v1::Failure& failure = report().failures(0);
  EXPECT_EQ(failure.kind(), v1::FAILURE_KIND_TOO_SLOW);
  EXPECT_EQ(failure.rank(), -1);
  EXPECT_GT(failure.measured_busbw_gbps(), 0);
  EXPECT_THAT(failure.message(),
              AllOf(HasSubstr("size 2048 did not finish"), HasSubstr("9 of 14 calls done"),
                    HasSubstr("400000 us a call")));
  AllNodesStopped();
  EXPECT_EQ(report().state(), v1::TEST_STATE_FAILED);
}

// The calls done predict that the size needs more than the step deadline:
// stopped at once, not after waiting the deadline out.
TEST_F(TestRunDeadlineTest, SizeWhoseCallsPredictAnOverrunStopsAtOnce) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  AllRanksDoSize(0);
  executor_.AdvanceTime(absl::Seconds(1));
  AllRanksProgress(1, 3, 2, 10'000'000);  // 5 s a call, 11 calls left
  ASSERT_EQ(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).kind(), v1::FAILURE_KIND_TOO_SLOW);
  EXPECT_THAT(report().failures(0).message(),
              AllOf(HasSubstr("would not finish"), HasSubstr("needs about 56s")));
}

// NCCL's timed batch completes as a whole: calls outside it (the untimed
// one) are progress, but nothing shows the batch moving, so the size's
// deadline passes no verdict; the stall limit decides, from the batch the
// previous size predicts (5 calls of 200 us: under its floor).
TEST_F(TestRunDeadlineTest, ProgressWithoutTimedCallsLeavesTheVerdictToTheStallLimit) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  AllRanksDoSize(0);
  executor_.AdvanceTime(absl::Seconds(1));
  AllRanksProgress(1, 1, 0, 0);
  executor_.AdvanceTime(kDefaultStallFloor - kEpsilon);
  EXPECT_EQ(report().failures_size(), 0);
  executor_.AdvanceTime(kEpsilon);
  ASSERT_EQ(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).kind(), v1::FAILURE_KIND_NO_PROGRESS);
  EXPECT_THAT(report().failures(0).message(), HasSubstr("4 x 5 calls of ~0.2 ms"));
}

// Progress restarts the hang deadline; a report of another step (late, or
// out of order) does not.
TEST_F(TestRunDeadlineTest, ProgressOfTheCurrentStepRestartsTheHangDeadline) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  AllRanksDoSize(0);
  executor_.AdvanceTime(absl::Seconds(20));
  AllRanksProgress(0, 14, 0, 0);  // step 0: stale
  executor_.AdvanceTime(kStep - absl::Seconds(20));
  ASSERT_EQ(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).kind(), v1::FAILURE_KIND_NO_PROGRESS);
}

TEST_F(TestRunDeadlineTest, EveryRankStuckInASizeItShouldFinishNamesNoRank) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  AllRanksDoSize(0, /*time_us=*/100);
  executor_.AdvanceTime(kStep);
  ASSERT_EQ(report().failures_size(), 1);
  const v1::Failure& failure = report().failures(0);
  // Issue 29: a data path that carries nothing is a network fault of the
  // test's nodes (a validation re-tests them), still TIMED_OUT for run-test.
  EXPECT_EQ(failure.kind(), v1::FAILURE_KIND_NO_PROGRESS);
  EXPECT_EQ(failure.rank(), -1);
  EXPECT_THAT(failure.message(),
              AllOf(HasSubstr("every rank stuck at size 2048"), HasSubstr("no rank is named"),
                    HasSubstr("predicted it would finish")));
  AllNodesStopped();
  EXPECT_EQ(report().state(), v1::TEST_STATE_TIMED_OUT);
  EXPECT_THAT(report().summary(), Not(HasSubstr("rank 0 (")));
}

TEST_F(TestRunDeadlineTest, EveryRankStuckInTheFirstSizeIsATimeoutWithoutMeasurement) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  executor_.AdvanceTime(kStep);
  ASSERT_EQ(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).kind(), v1::FAILURE_KIND_NO_PROGRESS);
  EXPECT_EQ(report().failures(0).rank(), -1);
  EXPECT_THAT(report().failures(0).message(), HasSubstr("every rank stuck at size 1024"));
  AllNodesStopped();
  EXPECT_EQ(report().state(), v1::TEST_STATE_TIMED_OUT);
}

// Every rank reached the rendezvous and none joined: what connects the
// nodes carried nothing; no rank is behind another to be named.
TEST_F(TestRunDeadlineTest, InitWhereEveryRankReachedTheRendezvousAndNoneJoinedIsNoProgress) {
  CreateAndStart();
  RegisterAll();
  for (int rank = 0; rank < 4; ++rank) Joining(rank);
  executor_.AdvanceTime(kInit);
  ASSERT_EQ(report().failures_size(), 1);
  const v1::Failure& failure = report().failures(0);
  EXPECT_EQ(failure.kind(), v1::FAILURE_KIND_NO_PROGRESS);
  EXPECT_EQ(failure.rank(), -1);
  EXPECT_THAT(failure.message(), HasSubstr("every rank reached the rendezvous"));
  AllNodesStopped();
  EXPECT_EQ(report().state(), v1::TEST_STATE_TIMED_OUT);
}

TEST_F(TestRunDeadlineTest, TotalDeadlineTimesOutASlowButProgressingTest) {
  TestRunTimeouts timeouts = DefaultTimeouts();
  timeouts.total = absl::Seconds(60);
  CreateAndStart(2, 2, DefaultSpec(), timeouts);
  RegisterAll();
  JoinAll();
  // A size every 25 s: never a step timeout, but past the total deadline.
  executor_.AdvanceTime(absl::Seconds(25));
  AllRanksDoSize(0);
  executor_.AdvanceTime(absl::Seconds(25));
  AllRanksDoSize(1);
  executor_.AdvanceTime(absl::Seconds(10) - kEpsilon);
  EXPECT_EQ(report().failures_size(), 0);

  executor_.AdvanceTime(kEpsilon);
  ASSERT_EQ(report().failures_size(), 1);
  const v1::Failure& failure = report().failures(0);
  EXPECT_EQ(failure.kind(), v1::FAILURE_KIND_TIMEOUT);
  EXPECT_EQ(failure.rank(), -1);
  EXPECT_THAT(failure.message(),
              AllOf(HasSubstr("exceeded its deadline of 60s"), HasSubstr("rank 0 (node node-a"),
                    HasSubstr("rank 3 (node node-b")));
  EXPECT_THAT(host_.StopNodes(), ElementsAre("node-a", "node-b"));
  AllNodesStopped();
  ASSERT_TRUE(run_->finished());
  EXPECT_EQ(report().state(), v1::TEST_STATE_TIMED_OUT);
}

TEST_F(TestRunDeadlineTest, NoDeadlineFiresOnceTheTestIsStopping) {
  CreateAndStart();
  RunWholeSweep();
  ASSERT_EQ(report().state(), v1::TEST_STATE_STOPPING);
  // Only the stop deadline is left.
  EXPECT_EQ(executor_.pending_timers(), 1u);
  AllNodesStopped();
  executor_.AdvanceTime(kTotal + kStep);
  EXPECT_EQ(report().state(), v1::TEST_STATE_PASSED);
  EXPECT_EQ(report().failures_size(), 0);
  EXPECT_THAT(report().summary(), Not(HasSubstr("deadline")));
}

}  // namespace
}  // namespace eb::coordinator::test
