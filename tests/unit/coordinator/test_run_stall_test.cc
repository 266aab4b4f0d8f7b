// TestRun: the stall limit inside a size (stall_watch.h; issue 29 item 6: a
// data path that stops carrying traffic is named within 5 s with the
// shipped defaults, not at the 2-minute step deadline), driven by advancing
// the fake clock.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/test_run_fixture.h"

namespace eb::coordinator::test {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr absl::Duration kStallEpsilon = absl::Milliseconds(1);
constexpr absl::Duration kShippedStallFloor = kDefaultStallFloor;

class TestRunStallTest : public TestRunFixture {
 protected:
  // Every rank measured size 0 and is in size 1 (2 KiB, 14 calls).
  void InSecondSize(TestRunTimeouts timeouts = DefaultTimeouts()) {
    CreateAndStart(2, 2, DefaultSpec(), timeouts);
    RegisterAll();
    JoinAll();
    AllRanksDoSize(0);
  }
};

TEST_F(TestRunStallTest, ADeadPathIsNamedAtTheStallLimitNotAtTheStepDeadline) {
  InSecondSize();
  executor_.AdvanceTime(absl::Seconds(1));
  AllRanksProgress(1, 3, 2, 30'000);  // timed calls of 15 ms each, one by one
  executor_.AdvanceTime(kShippedStallFloor - kStallEpsilon);
  EXPECT_EQ(report().failures_size(), 0);
  executor_.AdvanceTime(kStallEpsilon);
  ASSERT_EQ(report().failures_size(), 1);
  const v1::Failure& failure = report().failures(0);
  EXPECT_EQ(failure.kind(), v1::FAILURE_KIND_NO_PROGRESS);
  EXPECT_EQ(failure.rank(), -1);
  EXPECT_THAT(failure.message(),
              AllOf(HasSubstr("no rank completed a call for 4s at size 2048"),
                    HasSubstr("3 of 14 calls done"), HasSubstr("no rank is named")));
  AllNodesStopped();
  EXPECT_EQ(report().state(), v1::TEST_STATE_TIMED_OUT);
}

// One direction of a path cut: node-a's ranks got what they needed and
// finished the size; node-b's wait for data that never comes. Running ranks
// (a stopped one is its agent's to name, earlier): the path, not rank 2.
TEST_F(TestRunStallTest, RanksLeftBehindByAOneWayCutAreWhereTheDataStoppedNotTheCulprits) {
  InSecondSize();
  AllRanksProgress(1, 11, 5, 75'000);
  SizeDone(0, 1);
  SizeDone(1, 1);
  executor_.AdvanceTime(kShippedStallFloor);
  ASSERT_EQ(report().failures_size(), 1);
  const v1::Failure& failure = report().failures(0);
  EXPECT_EQ(failure.kind(), v1::FAILURE_KIND_NO_PROGRESS);
  EXPECT_EQ(failure.rank(), -1);
  EXPECT_EQ(failure.node_name(), "");
  EXPECT_THAT(failure.message(), AllOf(HasSubstr("the data stopped reaching the ranks still in it"),
                                       HasSubstr("rank 2"), HasSubstr("no rank is named")));
}

// Rank 3 is in its own work between calls (filling or checking its
// buffers) and does not finish it: starved of CPU (a CFS quota on a loaded
// host), not a path that carries nothing. Left to the step deadline, and to
// its agent if it stopped.
TEST_F(TestRunStallTest, ARankInItsOwnWorkBetweenCallsIsNotThePath) {
  InSecondSize();
  for (int rank = 0; rank < 3; ++rank) Progress(rank, 1, 11, 5, 75'000);
  Progress(3, 1, 11, 5, 75'000, 14, /*waiting=*/false);
  executor_.AdvanceTime(3 * kShippedStallFloor);
  EXPECT_EQ(report().failures_size(), 0);
  // It enters the call: now every rank waits on the others.
  Progress(3, 1, 11, 5, 75'000, 14, /*waiting=*/true);
  executor_.AdvanceTime(3 * kShippedStallFloor);
  ASSERT_EQ(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).kind(), v1::FAILURE_KIND_NO_PROGRESS);
}

TEST_F(TestRunStallTest, CallsThatKeepCompletingKeepTheSizeAlive) {
  InSecondSize();
  for (int done = 2; done <= 6; ++done) {
    executor_.AdvanceTime(kShippedStallFloor - absl::Milliseconds(500));
    AllRanksProgress(1, done, done - 1, (done - 1) * 15'000);
  }
  EXPECT_EQ(report().failures_size(), 0);
}

TEST_F(TestRunStallTest, ASizesFirstCallIsLeftToTheStepDeadline) {
  InSecondSize();
  // Rank 3 has not completed the size's first call (NCCL may connect for
  // a new algorithm there): the others' reports start no stall limit.
  for (int rank = 0; rank < 3; ++rank) Progress(rank, 1, 3, 2, 30'000);
  executor_.AdvanceTime(3 * kShippedStallFloor);
  EXPECT_EQ(report().failures_size(), 0);
}

TEST_F(TestRunStallTest, AGlooSizesFirstCallIsJudged) {
  v1::TestSpec spec = DefaultSpec();
  spec.set_transport(v1::TRANSPORT_GLOO);  // every pair connected at init
  CreateAndStart(2, 2, spec);
  RegisterAll();
  JoinAll();
  AllRanksDoSize(0);
  AllRanksProgress(1, 0, 0, 0);  // filled, in size 1's first call
  executor_.AdvanceTime(kShippedStallFloor - kStallEpsilon);
  EXPECT_EQ(report().failures_size(), 0);
  executor_.AdvanceTime(kStallEpsilon);
  ASSERT_EQ(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).kind(), v1::FAILURE_KIND_NO_PROGRESS);
  EXPECT_THAT(report().failures(0).message(), HasSubstr("0 of 14 calls done"));
}

TEST_F(TestRunStallTest, TheInPlaceVariantsUntimedCallIsJudged) {
  InSecondSize();
  executor_.AdvanceTime(absl::Seconds(1));
  // Out-of-place done: the in-place variant's untimed call is in flight,
  // on connections the first call made.
  AllRanksProgress(1, 7, 5, 75'000);
  executor_.AdvanceTime(kShippedStallFloor);
  ASSERT_EQ(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).kind(), v1::FAILURE_KIND_NO_PROGRESS);
}

TEST_F(TestRunStallTest, TheFirstSizeOfABackendThatTimesWholeBatchesIsLeftToTheStepDeadline) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  executor_.AdvanceTime(absl::Seconds(1));
  AllRanksProgress(0, 1, 0, 0);  // NCCL: nothing measured to expect a call by
  executor_.AdvanceTime(3 * kShippedStallFloor);
  EXPECT_EQ(report().failures_size(), 0);
  executor_.AdvanceTime(kStep);
  ASSERT_EQ(report().failures_size(), 1);
  EXPECT_THAT(report().failures(0).message(), HasSubstr("no rank made progress for 30s"));
}

TEST_F(TestRunStallTest, AFloorSetByTheOperatorIsKept) {
  TestRunTimeouts timeouts = DefaultTimeouts();
  timeouts.stall = absl::Seconds(10);
  InSecondSize(timeouts);
  AllRanksProgress(1, 3, 2, 30'000);
  executor_.AdvanceTime(absl::Seconds(10) - kStallEpsilon);
  EXPECT_EQ(report().failures_size(), 0);
  executor_.AdvanceTime(kStallEpsilon);
  ASSERT_EQ(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).kind(), v1::FAILURE_KIND_NO_PROGRESS);
}

// The coordinator itself did not run past the stall limit (its reports
// queued behind the timer): the late check judges nothing, the queued
// report counts, and the size lives on. The 7 s between the ranks' two
// reports count as their cadence: a stall of the coordinator only makes the
// rule slower (1.5 x 7 s), never quicker.
TEST_F(TestRunStallTest, AStalledCoordinatorDoesNotJudgeTheQueuedReports) {
  InSecondSize();
  AllRanksProgress(1, 3, 2, 30'000);
  clock_.Advance(kShippedStallFloor + absl::Seconds(3));  // the coordinator did not run
  executor_.RunUntilIdle();
  EXPECT_EQ(report().failures_size(), 0);
  AllRanksProgress(1, 4, 3, 45'000);  // what waited
  executor_.AdvanceTime(absl::Milliseconds(10'500) - kStallEpsilon);
  EXPECT_EQ(report().failures_size(), 0);
  executor_.AdvanceTime(kStallEpsilon);
  EXPECT_EQ(report().failures_size(), 1);
}

}  // namespace
}  // namespace eb::coordinator::test
