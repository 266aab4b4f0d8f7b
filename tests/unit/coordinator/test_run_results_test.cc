// TestRun: per-size rows, the successful end, and the checks made when the
// sweep is complete (wrong data, minimum bus bandwidth).

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/test_run_fixture.h"

namespace eb::coordinator::test {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::StartsWith;

constexpr double kTolerance = 1e-12;
// all_reduce of float over 4 ranks at 100 us for every size (factor 1.5):
// busbw 0.01536, 0.03072 and 0.06144 GB/s for 1, 2 and 4 KiB; their mean.
constexpr double kSweepAvgBusbw = 0.03584;

class TestRunResultsTest : public TestRunFixture {};

TEST_F(TestRunResultsTest, RowsArePublishedOnceEveryRankReportedTheSizeInOrder) {
  CreateAndStart();
  RegisterAll();
  JoinAll();

  SizeDone(0, 0, 100);
  SizeDone(1, 0, 200);
  SizeDone(2, 0, 300);
  // Rank 2 is ahead and already reports the second size.
  SizeDone(2, 1, 100);
  EXPECT_THAT(host_.Rows(), IsEmpty());
  EXPECT_EQ(report().results_size(), 0);

  SizeDone(0, 1, 100);
  SizeDone(1, 1, 100);
  EXPECT_THAT(host_.Rows(), IsEmpty());

  // Rank 3's first size completes the first row; its second the second.
  SizeDone(3, 0, 400);
  ASSERT_THAT(host_.Rows(), SizeIs(1));
  SizeDone(3, 1, 100);
  const std::vector<v1::SizeResult> rows = host_.Rows();
  ASSERT_THAT(rows, SizeIs(2));
  EXPECT_EQ(rows[0].size_bytes(), 1024);
  EXPECT_EQ(rows[0].count(), 256);
  EXPECT_EQ(rows[1].size_bytes(), 2048);

  // The first row: time averaged over the ranks (250 us), bandwidth from
  // that average: algbw = 1024 B / 1e9 / 250e-6 s, busbw * 2*(4-1)/4.
  const v1::VariantResult& out = rows[0].out_of_place();
  EXPECT_NEAR(out.time_us(), 250.0, kTolerance);
  EXPECT_NEAR(out.algbw_gbps(), 0.004096, kTolerance);
  EXPECT_NEAR(out.busbw_gbps(), 0.006144, kTolerance);
  EXPECT_THAT(out.rank_time_us(), ElementsAre(100.0, 200.0, 300.0, 400.0));
  EXPECT_EQ(out.slowest_rank(), 3);
  EXPECT_DOUBLE_EQ(out.min_time_us(), 100.0);
  EXPECT_DOUBLE_EQ(out.max_time_us(), 400.0);

  // The report holds the same rows.
  ASSERT_EQ(report().results_size(), 2);
  EXPECT_EQ(report().results(0).out_of_place().time_us(), out.time_us());
  EXPECT_EQ(report().results(1).size_bytes(), 2048);
  EXPECT_EQ(report().state(), v1::TEST_STATE_RUNNING);
}

TEST_F(TestRunResultsTest, CompleteSweepStopsThenPassesOnlyOnceEveryNodeStopped) {
  CreateAndStart();
  RunWholeSweep();
  EXPECT_THAT(host_.StateChanges(), ElementsAre(v1::TEST_STATE_INITIALIZING, v1::TEST_STATE_RUNNING,
                                                v1::TEST_STATE_STOPPING));
  // Workers exit by themselves after FINISHED: nobody is told to stop.
  EXPECT_THAT(host_.Stops(), IsEmpty());
  EXPECT_FALSE(run_->finished());

  run_->OnWorkersStopped("node-a");
  EXPECT_FALSE(run_->finished());
  EXPECT_EQ(host_.CountFinishedEvents(), 0);
  EXPECT_THAT(host_.finished_test_ids, IsEmpty());

  clock_.Advance(absl::Seconds(3));
  run_->OnWorkersStopped("node-b");
  ASSERT_TRUE(run_->finished());
  EXPECT_EQ(report().state(), v1::TEST_STATE_PASSED);
  EXPECT_EQ(report().failures_size(), 0);
  EXPECT_EQ(report().results_size(), 3);
  EXPECT_NEAR(report().avg_busbw_gbps(), kSweepAvgBusbw, kTolerance);
  EXPECT_EQ(report().wrong_elements(), 0);
  EXPECT_THAT(report().summary(), AllOf(HasSubstr("all_reduce"), HasSubstr("4 ranks on 2 nodes"),
                                        HasSubstr("3 sizes"), HasSubstr("data verified")));
  EXPECT_EQ(report().end_time_unix_ms() - report().start_time_unix_ms(), 3000);

  // The last event is the final report, and the host heard of it once.
  ASSERT_TRUE(host_.events.back().has_finished());
  EXPECT_EQ(host_.events.back().finished().state(), v1::TEST_STATE_PASSED);
  EXPECT_EQ(host_.CountFinishedEvents(), 1);
  EXPECT_THAT(host_.finished_test_ids, ElementsAre("t-1"));
  // No timer is left behind.
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

TEST_F(TestRunResultsTest, TheSlowestRankIsStoredOnceWhenTheTestFinishes) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  // Rank 2 (node-b, slot 0) takes 200 us where the others take 100 us.
  for (int size = 0; size < 3; ++size) {
    for (int rank = 0; rank < 4; ++rank) SizeDone(rank, size, rank == 2 ? 200 : 100);
  }
  FinishAll();
  EXPECT_FALSE(report().has_slowest_rank());  // only a final report has one
  AllNodesStopped();
  ASSERT_TRUE(run_->finished());
  ASSERT_TRUE(report().has_slowest_rank());
  const v1::SlowestRank& slowest = report().slowest_rank();
  EXPECT_EQ(slowest.rank(), 2);
  EXPECT_EQ(slowest.node_name(), "node-b");
  EXPECT_EQ(slowest.local_rank(), 0);
  EXPECT_EQ(slowest.slowest_count(), 6);  // 3 sizes x 2 variants
  EXPECT_EQ(slowest.measurements(), 6);
  // 200 us over the rank mean of 125 us.
  EXPECT_NEAR(slowest.mean_excess_pct(), 60.0, 1e-9);
  // The final event carries it too.
  ASSERT_TRUE(host_.events.back().has_finished());
  EXPECT_EQ(host_.events.back().finished().slowest_rank().rank(), 2);
}

TEST_F(TestRunResultsTest, EqualTimesStoreNoSlowestRank) {
  CreateAndStart();
  RunWholeSweep();
  AllNodesStopped();
  ASSERT_TRUE(run_->finished());
  EXPECT_FALSE(report().has_slowest_rank());
}

TEST_F(TestRunResultsTest, WithoutADataCheckTheSummaryDoesNotClaimOne) {
  v1::TestSpec spec = DefaultSpec();
  spec.set_check_iterations(0);
  CreateAndStart(2, 2, spec);
  RunWholeSweep();
  run_->OnWorkersStopped("node-a");
  run_->OnWorkersStopped("node-b");
  ASSERT_TRUE(run_->finished());
  EXPECT_EQ(report().state(), v1::TEST_STATE_PASSED);
  EXPECT_THAT(report().summary(), HasSubstr("data not checked (-c 0)"));
  EXPECT_THAT(report().summary(), Not(HasSubstr("data verified")));
}

TEST_F(TestRunResultsTest, NodeThatFinishedEarlyMayStopBeforeTheOthers) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  for (int i = 0; i < 3; ++i) AllRanksDoSize(i);
  Finish(0);
  Finish(1);
  run_->OnWorkersStopped("node-a");
  EXPECT_EQ(report().failures_size(), 0);
  EXPECT_EQ(report().state(), v1::TEST_STATE_RUNNING);
  EXPECT_THAT(host_.Stops(), IsEmpty());

  Finish(2);
  Finish(3);
  EXPECT_EQ(report().state(), v1::TEST_STATE_STOPPING);
  // node-a already confirmed; node-b's confirmation ends the test.
  EXPECT_FALSE(run_->finished());
  run_->OnWorkersStopped("node-b");
  ASSERT_TRUE(run_->finished());
  EXPECT_EQ(report().state(), v1::TEST_STATE_PASSED);
}

TEST_F(TestRunResultsTest, SuccessIsFinalizedAfterTheStopTimeoutWhenAnAgentStaysSilent) {
  CreateAndStart();
  RunWholeSweep();
  run_->OnWorkersStopped("node-a");
  executor_.AdvanceTime(kStop - absl::Milliseconds(1));
  EXPECT_FALSE(run_->finished());
  executor_.AdvanceTime(absl::Milliseconds(1));
  ASSERT_TRUE(run_->finished());
  EXPECT_EQ(report().state(), v1::TEST_STATE_PASSED);
  // The silent agent is told to stop the workers it may still have.
  EXPECT_THAT(host_.StopNodes(), ElementsAre("node-b"));
}

TEST_F(TestRunResultsTest, WrongElementsFailWithWrongDataNamingTheRank) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  AllRanksDoSize(0);
  SizeDone(0, 1);
  SizeDone(1, 1);
  SizeDone(2, 1, 100, /*wrong_out=*/3, /*wrong_in=*/2);
  SizeDone(3, 1);
  AllRanksDoSize(2);
  FinishAll();
  AllNodesStopped();

  ASSERT_TRUE(run_->finished());
  EXPECT_EQ(report().state(), v1::TEST_STATE_FAILED);
  EXPECT_EQ(report().wrong_elements(), 5);
  EXPECT_EQ(report().results(1).out_of_place().wrong_elements(), 3);
  EXPECT_EQ(report().results(1).in_place().wrong_elements(), 2);
  ASSERT_EQ(report().failures_size(), 1);
  const v1::Failure& failure = report().failures(0);
  EXPECT_EQ(failure.kind(), v1::FAILURE_KIND_WRONG_DATA);
  EXPECT_EQ(failure.rank(), 2);
  EXPECT_EQ(failure.node_name(), "node-b");
  EXPECT_EQ(failure.local_rank(), 0);
  EXPECT_EQ(failure.device_index(), 0);
  EXPECT_THAT(failure.message(), HasSubstr("5 wrong elements"));
  EXPECT_THAT(report().summary(), StartsWith("rank 2 (node node-b, slot 0, GPU 0): "));
}

TEST_F(TestRunResultsTest, AverageBusbwBelowTheMinimumFails) {
  v1::TestSpec spec = DefaultSpec();
  spec.set_min_busbw_gbps(kSweepAvgBusbw * 1.01);
  CreateAndStart(2, 2, spec);
  RunWholeSweep();
  AllNodesStopped();

  ASSERT_TRUE(run_->finished());
  EXPECT_EQ(report().state(), v1::TEST_STATE_FAILED);
  ASSERT_EQ(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).kind(), v1::FAILURE_KIND_BELOW_MIN_BUSBW);
  EXPECT_EQ(report().failures(0).rank(), -1);
  EXPECT_THAT(report().failures(0).message(),
              AllOf(HasSubstr("0.036"), HasSubstr("below --min-busbw")));
}

TEST_F(TestRunResultsTest, AverageBusbwAtTheMinimumPasses) {
  v1::TestSpec spec = DefaultSpec();
  spec.set_min_busbw_gbps(kSweepAvgBusbw * 0.99);
  CreateAndStart(2, 2, spec);
  RunWholeSweep();
  AllNodesStopped();
  ASSERT_TRUE(run_->finished());
  EXPECT_EQ(report().state(), v1::TEST_STATE_PASSED);
  // Ranks that agree: the judged figure is the shown one, nothing to say.
  EXPECT_NEAR(report().judged_avg_busbw_gbps(), report().avg_busbw_gbps(), kTolerance);
  EXPECT_THAT(report().rank_times_finding(), IsEmpty());
}

// P2-4d (issue 32 item 3): node-a's ranks report times 10x too short (its
// clock ran slow) and rank 0's time makes the rows (-a 0), so the table
// shows 10x the busbw. Judged on node-b's times the sweep is still below
// --min-busbw, and the report says whose times disagree.
TEST_F(TestRunResultsTest, P2_4d_ANodeReportingShortTimesCannotTurnAFailedSweepIntoAPass) {
  v1::TestSpec spec = DefaultSpec();
  spec.set_average(0);
  spec.set_min_busbw_gbps(kSweepAvgBusbw * 1.5);
  CreateAndStart(2, 2, spec);
  RegisterAll();
  JoinAll();
  for (int size = 0; size < 3; ++size) {
    for (int rank = 0; rank < 4; ++rank) SizeDone(rank, size, rank < 2 ? 10 : 100);
  }
  FinishAll();
  AllNodesStopped();

  ASSERT_TRUE(run_->finished());
  EXPECT_NEAR(report().avg_busbw_gbps(), 10 * kSweepAvgBusbw, 1e-9);  // rank 0's word
  EXPECT_NEAR(report().judged_avg_busbw_gbps(), kSweepAvgBusbw, 1e-9);
  EXPECT_EQ(report().state(), v1::TEST_STATE_FAILED);
  ASSERT_EQ(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).kind(), v1::FAILURE_KIND_BELOW_MIN_BUSBW);
  EXPECT_THAT(report().failures(0).message(),
              AllOf(HasSubstr("0.036 GB/s (judged on the slowest node's times; shown 0.358)"),
                    HasSubstr("below --min-busbw")));
  EXPECT_THAT(report().rank_times_finding(),
              HasSubstr("node node-a's ranks reported times 10.0x shorter than node node-b's"));
}

// Issue 29, item 4: the bandwidth passes, but rank 3's NCCL used sockets on
// a node configured for IB: FAILED, UNEXPECTED_PATH naming it (exit 7).
TEST_F(TestRunResultsTest, ARankOnAnotherPathThanConfiguredFailsAFineSweep) {
  edit_inventory_ = [](int, v1::NodeInventory& inventory) {
    inventory.add_hcas()->set_name("mlx5_0");
  };
  CreateAndStart();
  RunWholeSweep();
  for (const std::string node : {"node-a", "node-b"}) {
    v1::NodeTestEvidence evidence;
    for (int rank = node == "node-a" ? 0 : 2, last = rank + 2; rank < last; ++rank) {
      v1::RankNicUse& use = *evidence.add_nic_use();
      use.set_rank(rank);
      use.set_info_level(true);
      use.set_net_transport(rank == 3 ? "Socket" : "IB");
    }
    run_->OnNodeEvidence(node, evidence);
  }
  AllNodesStopped();
  ASSERT_TRUE(run_->finished());
  EXPECT_EQ(report().state(), v1::TEST_STATE_FAILED);
  ASSERT_EQ(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).kind(), v1::FAILURE_KIND_UNEXPECTED_PATH);
  EXPECT_EQ(report().failures(0).rank(), 3);
  EXPECT_THAT(report().summary(),
              HasSubstr("NCCL's path: used NET/Socket instead of NET/IB (HCAs configured: "
                        "mlx5_0)"));
  EXPECT_THAT(report().nic_use(3).findings(), SizeIs(1));
}

// A rank whose log had no INFO lines is unknown: the test passes.
TEST_F(TestRunResultsTest, UnknownNcclPathsNeverFailATest) {
  edit_inventory_ = [](int, v1::NodeInventory& inventory) {
    inventory.add_hcas()->set_name("mlx5_0");
  };
  CreateAndStart();
  RunWholeSweep();
  v1::NodeTestEvidence evidence;
  v1::RankNicUse& use = *evidence.add_nic_use();
  use.set_rank(0);
  use.set_unknown_reason("no NCCL INFO lines in its log (NCCL_DEBUG below INFO)");
  run_->OnNodeEvidence("node-a", evidence);
  AllNodesStopped();
  ASSERT_TRUE(run_->finished());
  EXPECT_EQ(report().state(), v1::TEST_STATE_PASSED);
}

TEST_F(TestRunResultsTest, NothingIsPublishedOrSentAfterTheTestFinished) {
  CreateAndStart();
  RunWholeSweep();
  AllNodesStopped();
  ASSERT_TRUE(run_->finished());
  const size_t events = host_.events.size();
  const size_t sent = host_.sent.size();

  Fail(0, v1::WORKER_EVENT_KIND_EXITED, v1::FAILURE_KIND_WORKER_EXITED, "late exit", 1);
  SizeDone(1, 0);
  run_->OnWorkersStopped("node-a");
  run_->OnNodeLost("node-b", "agent disconnected");
  run_->Cancel("too late");
  executor_.AdvanceTime(absl::Hours(1));

  EXPECT_EQ(host_.events.size(), events);
  EXPECT_EQ(host_.sent.size(), sent);
  EXPECT_THAT(host_.finished_test_ids, ElementsAre("t-1"));
  EXPECT_EQ(report().state(), v1::TEST_STATE_PASSED);
  EXPECT_EQ(report().failures_size(), 0);
}

}  // namespace
}  // namespace eb::coordinator::test
