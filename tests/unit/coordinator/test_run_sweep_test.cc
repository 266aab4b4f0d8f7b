// The sweep as the coordinator plans it (PlanSweep), sends it (LaunchTest.
// sizes_bytes) and holds every rank to it: a report off the list fails the
// test loudly and is never mixed into a row.

#include <string>
#include <vector>

#include "coordinator/core/collective_tests/sweep_plan.h"
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
using ::testing::SizeIs;

std::vector<int64_t> Field(const std::vector<PlannedSize>& plan, int64_t PlannedSize::*field) {
  std::vector<int64_t> values;
  values.reserve(plan.size());
  for (const PlannedSize& size : plan) values.push_back(size.*field);
  return values;
}

TEST(PlanSweepTest, SizesAndWhatEachRankMustReport) {
  v1::TestSpec spec = SmallSweepSpec();  // all_reduce, 1, 2, 4 KiB
  spec.set_data_type(v1::DATA_TYPE_FLOAT);
  absl::StatusOr<std::vector<PlannedSize>> plan = PlanSweep(spec, 4);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(Field(*plan, &PlannedSize::sweep_bytes), ElementsAre(1024, 2048, 4096));
  EXPECT_THAT(Field(*plan, &PlannedSize::size_bytes), ElementsAre(1024, 2048, 4096));
  EXPECT_THAT(Field(*plan, &PlannedSize::count), ElementsAre(256, 512, 1024));

  // all_gather over 3 ranks: per-rank chunks rounded down to 16 bytes, as
  // nccl-tests prints them (1000 B: 250 floats, 83 per rank, 80 aligned).
  spec.set_collective(v1::COLLECTIVE_ALL_GATHER);
  spec.set_min_bytes(1000);
  spec.set_max_bytes(4000);
  plan = PlanSweep(spec, 3);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(Field(*plan, &PlannedSize::sweep_bytes), ElementsAre(1000, 2000, 4000));
  EXPECT_THAT(Field(*plan, &PlannedSize::count), ElementsAre(80, 164, 332));
  EXPECT_THAT(Field(*plan, &PlannedSize::size_bytes), ElementsAre(960, 1968, 3984));
}

TEST(PlanSweepTest, RefusesWhatSweepSizesRefusesNamingTheField) {
  v1::TestSpec spec = SmallSweepSpec();
  spec.set_data_type(v1::DATA_TYPE_FLOAT);
  spec.set_max_bytes(8);
  EXPECT_THAT(PlanSweep(spec, 2),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("max_bytes")));
  spec = SmallSweepSpec();
  EXPECT_THAT(PlanSweep(spec, 2),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("data_type")));
}

class TestRunSweepTest : public TestRunFixture {
 protected:
  // `rank` reports `size_bytes` and `count` as its next size.
  void Report(int rank, int64_t size_bytes, int64_t count) {
    v1::WorkerEvent event = Event(rank, v1::WORKER_EVENT_KIND_SIZE_DONE);
    *event.mutable_size_result() = RankResult(size_bytes, count, 100);
    run_->OnWorkerEvent(NodeOf(rank), event);
  }
  void StartAndJoin() {
    CreateAndStart();
    RegisterAll();
    JoinAll();
  }
};

TEST_F(TestRunSweepTest, EveryNodeIsSentTheOneSweep) {
  CreateAndStart(/*num_nodes=*/3, /*per_node=*/1);
  const auto launches = host_.Launches();
  ASSERT_THAT(launches, SizeIs(3));
  for (const auto& [node, launch] : launches) {
    EXPECT_THAT(launch.sizes_bytes(), ElementsAre(1024, 2048, 4096)) << node;
  }
}

TEST_F(TestRunSweepTest, ASizeOutOfOrderFailsNamingRankNodeAndBothSizes) {
  StartAndJoin();
  AllRanksDoSize(0);
  SizeDone(0, 1);
  // Rank 3 skips 2 KiB: a worker running its own sweep.
  Report(3, 4096, 1024);

  EXPECT_EQ(report().state(), v1::TEST_STATE_STOPPING);
  EXPECT_THAT(host_.StopNodes(), ElementsAre("node-a", "node-b"));
  ASSERT_EQ(report().failures_size(), 1);
  const v1::Failure& failure = report().failures(0);
  EXPECT_EQ(failure.kind(), v1::FAILURE_KIND_INTERNAL);
  EXPECT_EQ(failure.rank(), 3);
  EXPECT_EQ(failure.node_name(), "node-b");
  EXPECT_THAT(failure.message(),
              AllOf(HasSubstr("reported size 4096 B (count 1024)"),
                    HasSubstr("where the sweep's size 2 of 3 is 2048 B (count 512"),
                    HasSubstr("eb-worker on node node-b the same ebnccl version")));
  // Only the first size, which every rank reported correctly, is a row.
  EXPECT_THAT(host_.Rows(), SizeIs(1));

  AllNodesStopped();
  EXPECT_EQ(report().state(), v1::TEST_STATE_FAILED);
  EXPECT_THAT(report().summary(), HasSubstr("rank 3 (node node-b, slot 1, GPU 1): reported size"));
  EXPECT_EQ(report().results_size(), 1);
}

TEST_F(TestRunSweepTest, TheRightSizeWithAnotherCountFailsToo) {
  // Another layout of the same size (an eb-worker with other nccl-tests
  // arithmetic) would average different calls into one row.
  StartAndJoin();
  Report(1, 1024, 128);
  ASSERT_EQ(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).rank(), 1);
  EXPECT_EQ(report().failures(0).node_name(), "node-a");
  EXPECT_THAT(report().failures(0).message(),
              AllOf(HasSubstr("reported size 1024 B (count 128)"),
                    HasSubstr("where the sweep's size 1 of 3 is 1024 B (count 256")));
  for (int r = 0; r < world_size_; ++r) {
    if (r != 1) SizeDone(r, 0);
  }
  EXPECT_THAT(host_.Rows(), IsEmpty());
}

TEST_F(TestRunSweepTest, ARankOffTheSweepIsReportedOnce) {
  StartAndJoin();
  Report(2, 2048, 512);  // first report, second size
  Report(2, 4096, 1024);
  Finish(2);
  EXPECT_EQ(report().failures_size(), 1);
  AllNodesStopped();
  EXPECT_EQ(report().state(), v1::TEST_STATE_FAILED);
  EXPECT_EQ(report().failures_size(), 1);
}

TEST_F(TestRunSweepTest, ARankReportingPastTheEndOfTheSweepIsReportedOnce) {
  // Like any other report off the sweep: one failure, then the rank's
  // later reports are not counted (each used to add another failure).
  StartAndJoin();
  for (int index = 0; index < 3; ++index) SizeDone(1, index);
  Report(1, 4096, 1024);
  Report(1, 4096, 1024);
  Finish(1);
  ASSERT_EQ(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).rank(), 1);
  EXPECT_EQ(report().failures(0).kind(), v1::FAILURE_KIND_INTERNAL);
  EXPECT_THAT(report().failures(0).message(), HasSubstr("reported more sizes than the sweep has"));
  AllNodesStopped();
  EXPECT_EQ(report().state(), v1::TEST_STATE_FAILED);
  EXPECT_EQ(report().failures_size(), 1);
}

// --collective all_reduce,broadcast: one launch with one list of sizes,
// every collective over it in turn, one verdict.
v1::TestSpec TwoCollectives() {
  // TestRunFixture::DefaultSpec with a list.
  v1::TestSpec spec = SmallSweepSpec();
  spec.set_data_type(v1::DATA_TYPE_FLOAT);
  spec.set_reduce_op(v1::REDUCE_OP_SUM);
  spec.set_transport(v1::TRANSPORT_NCCL);
  spec.add_collectives(v1::COLLECTIVE_ALL_REDUCE);
  spec.add_collectives(v1::COLLECTIVE_BROADCAST);
  return spec;
}

TEST(PlanSweepTest, SeveralCollectivesPlanEachOverTheSameSizes) {
  v1::TestSpec spec = TwoCollectives();
  absl::StatusOr<std::vector<PlannedSize>> plan = PlanSweep(spec, 4);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(Field(*plan, &PlannedSize::sweep_bytes),
              ElementsAre(1024, 2048, 4096, 1024, 2048, 4096));
  std::vector<v1::Collective> collectives;
  for (const PlannedSize& size : *plan) collectives.push_back(size.collective);
  EXPECT_THAT(collectives, ElementsAre(v1::COLLECTIVE_ALL_REDUCE, v1::COLLECTIVE_ALL_REDUCE,
                                       v1::COLLECTIVE_ALL_REDUCE, v1::COLLECTIVE_BROADCAST,
                                       v1::COLLECTIVE_BROADCAST, v1::COLLECTIVE_BROADCAST));
}

TEST_F(TestRunSweepTest, SeveralCollectivesRunInTurnOnOneLaunchWithOneVerdict) {
  CreateAndStart(2, 2, TwoCollectives());
  for (const auto& [node, launch] : host_.Launches()) {
    // One collective's sizes: the workers run each collective over them.
    EXPECT_THAT(launch.sizes_bytes(), ElementsAre(1024, 2048, 4096)) << node;
  }
  RunWholeSweep();
  AllNodesStopped();
  EXPECT_EQ(report().state(), v1::TEST_STATE_PASSED) << report().summary();
  ASSERT_EQ(report().results_size(), 6);
  EXPECT_EQ(report().results(0).collective(), v1::COLLECTIVE_ALL_REDUCE);
  EXPECT_EQ(report().results(5).collective(), v1::COLLECTIVE_BROADCAST);
  ASSERT_EQ(report().collective_summaries_size(), 2);
  EXPECT_EQ(report().collective_summaries(1).collective(), v1::COLLECTIVE_BROADCAST);
  EXPECT_EQ(report().collective_summaries(1).sizes(), 3);
  // all_reduce's busbw factor over 4 ranks is 1.5, broadcast's 1.
  EXPECT_NEAR(report().collective_summaries(0).avg_busbw_gbps(),
              1.5 * report().collective_summaries(1).avg_busbw_gbps(), 1e-12);
  EXPECT_THAT(report().summary(),
              AllOf(HasSubstr("all_reduce, broadcast over 4 ranks on 2 nodes: 2 collectives x 3 "
                              "sizes"),
                    HasSubstr("data verified")));
}

TEST_F(TestRunSweepTest, TheWorstCollectiveWinsAndIsNamed) {
  v1::TestSpec spec = TwoCollectives();
  // 100 us per call: all_reduce averages 0.0358 GB/s busbw, broadcast 0.0239.
  spec.set_min_busbw_gbps(0.03);
  CreateAndStart(2, 2, spec);
  RunWholeSweep();
  AllNodesStopped();
  EXPECT_EQ(report().state(), v1::TEST_STATE_FAILED);
  ASSERT_EQ(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).kind(), v1::FAILURE_KIND_BELOW_MIN_BUSBW);
  EXPECT_THAT(report().failures(0).message(),
              HasSubstr("broadcast: average bus bandwidth 0.024 GB/s is below --min-busbw"));
}

TEST_F(TestRunSweepTest, WrongDataNamesTheCollectiveThatFoundIt) {
  CreateAndStart(2, 2, TwoCollectives());
  RegisterAll();
  JoinAll();
  for (int i = 0; i < 6; ++i) {
    for (int r = 0; r < world_size_; ++r) SizeDone(r, i, 100, r == 2 && i == 4 ? 7 : 0);
  }
  FinishAll();
  AllNodesStopped();
  ASSERT_GE(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).kind(), v1::FAILURE_KIND_WRONG_DATA);
  EXPECT_EQ(report().failures(0).rank(), 2);
  EXPECT_THAT(report().failures(0).message(),
              HasSubstr("7 wrong elements in the data check of broadcast"));
  EXPECT_EQ(report().collective_summaries(1).wrong_elements(), 7);
  EXPECT_EQ(report().collective_summaries(0).wrong_elements(), 0);
}

TEST_F(TestRunSweepTest, ARankReportingAnotherCollectiveFails) {
  CreateAndStart(2, 2, TwoCollectives());
  RegisterAll();
  JoinAll();
  v1::WorkerEvent event = Event(1, v1::WORKER_EVENT_KIND_SIZE_DONE);
  *event.mutable_size_result() = RankResult(1024, 256, 100);
  event.mutable_size_result()->set_collective(v1::COLLECTIVE_BROADCAST);
  run_->OnWorkerEvent(NodeOf(1), event);
  ASSERT_EQ(report().failures_size(), 1);
  EXPECT_THAT(report().failures(0).message(),
              HasSubstr("reported broadcast where step 1 of 6 is all_reduce"));
}

}  // namespace
}  // namespace eb::coordinator::test
