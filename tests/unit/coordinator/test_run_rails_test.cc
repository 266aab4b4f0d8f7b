// TestRun with split rails (TestSpec.split_rails) and arrivals: rail rows
// checked against the rail sweep and aggregated per rail, the rail sweep
// counted in the progress, and the straggler attributed by arrival when
// the test finishes.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/test_run_fixture.h"

namespace eb::coordinator::test {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class TestRunRailsTest : public TestRunFixture {
 protected:
  static v1::TestSpec SplitSpec() {
    v1::TestSpec spec = DefaultSpec();
    spec.set_split_rails(true);
    return spec;
  }

  // `rank` reports rail size `index` (all_reduce: the same size and count
  // as the full sweep's), both variants taking `time_us`.
  void RailSizeDone(int rank, int index, double time_us) {
    v1::WorkerEvent event = Event(rank, v1::WORKER_EVENT_KIND_SIZE_DONE);
    const int64_t size = sizes_.at(index);
    *event.mutable_size_result() = RankResult(size, size / 4, time_us);
    event.mutable_size_result()->set_rail(true);
    run_->OnWorkerEvent(NodeOf(rank), event);
  }

  // Every rank's full sweep with arrivals: `late` arrives `lag_us` after
  // the others at every call.
  void FullSweepWithArrivals(int late, double lag_us) {
    for (size_t i = 0; i < sizes_.size(); ++i) {
      for (int r = 0; r < world_size_; ++r) {
        v1::WorkerEvent event = Event(r, v1::WORKER_EVENT_KIND_SIZE_DONE);
        const int64_t size = sizes_.at(i);
        *event.mutable_size_result() = RankResult(size, size / 4, lag_us + 100);
        for (v1::RankTiming* timing : {event.mutable_size_result()->mutable_out_of_place(),
                                       event.mutable_size_result()->mutable_in_place()}) {
          timing->set_arrival_us(r == late ? lag_us + 3 : 3);
          timing->set_arrival_samples(5);
        }
        run_->OnWorkerEvent(NodeOf(r), event);
      }
    }
  }
};

TEST_F(TestRunRailsTest, RailRowsAreAggregatedPerRailAndJudged) {
  CreateAndStart(2, 2, SplitSpec());
  ASSERT_EQ(report().rails_size(), 2);
  // Rail 1 = slot 1 of node-a (rank 1) and of node-b (rank 3).
  const v1::RailResult& rail1 = report().rails(1);
  ASSERT_EQ(rail1.members_size(), 2);
  EXPECT_EQ(rail1.members(0).rank(), 1);
  EXPECT_EQ(rail1.members(0).node_name(), "node-a");
  EXPECT_EQ(rail1.members(0).device_index(), 1);
  EXPECT_EQ(rail1.members(1).rank(), 3);
  EXPECT_EQ(rail1.members(1).node_name(), "node-b");

  RegisterAll();
  JoinAll();
  for (size_t i = 0; i < sizes_.size(); ++i) AllRanksDoSize(static_cast<int>(i));
  EXPECT_EQ(report().results_size(), static_cast<int>(sizes_.size()));
  // Finishing before the rail sweep is done would be a bug of the worker.
  for (size_t i = 0; i < sizes_.size(); ++i) {
    RailSizeDone(0, static_cast<int>(i), 100);
    RailSizeDone(2, static_cast<int>(i), 100);
    // Rail 1 is four times slower.
    RailSizeDone(1, static_cast<int>(i), 400);
    RailSizeDone(3, static_cast<int>(i), 400);
  }
  EXPECT_EQ(report().rails(0).results_size(), static_cast<int>(sizes_.size()));
  EXPECT_EQ(report().rails(1).results_size(), static_cast<int>(sizes_.size()));
  // Two members per rail: all_reduce's busbw factor over 2 ranks is 1.
  const v1::VariantResult& first = report().rails(0).results(0).out_of_place();
  EXPECT_THAT(first.rank_time_us(), ElementsAre(100.0, 100.0));
  EXPECT_NEAR(first.busbw_gbps(), sizes_[0] / 1e9 / 100e-6, 1e-12);
  EXPECT_EQ(report().state(), v1::TEST_STATE_RUNNING);
  FinishAll();
  AllNodesStopped();
  ASSERT_EQ(report().state(), v1::TEST_STATE_PASSED) << report().summary();
  EXPECT_TRUE(report().rails(1).slow());
  EXPECT_FALSE(report().rails(0).slow());
  EXPECT_NEAR(report().rails(1).avg_busbw_gbps() * 4, report().rails(0).avg_busbw_gbps(), 1e-9);
}

TEST_F(TestRunRailsTest, EachMemberIsNamedWithTheHcaNearestItsGpu) {
  // Issue 12, part 2: the inventory's affinity names each rail's HCAs.
  edit_inventory_ = [](int node, v1::NodeInventory& inventory) {
    for (int gpu = 0; gpu < 2; ++gpu) {
      v1::GpuInfo& info = *inventory.add_gpus();
      info.set_index(gpu);
      info.set_nearest_hca("mlx5_10" + std::to_string(node * 2 + gpu));
    }
  };
  CreateAndStart(2, 2, SplitSpec());
  const v1::TestReport& report = run_->report();
  ASSERT_EQ(report.rails_size(), 2);
  EXPECT_EQ(report.rails(1).members(0).hca(), "mlx5_101");
  EXPECT_EQ(report.rails(1).members(1).hca(), "mlx5_103");
  EXPECT_EQ(report.rails(0).members(1).hca(), "mlx5_102");
}

TEST_F(TestRunRailsTest, FinishingWithoutTheRailSweepFailsTheTest) {
  CreateAndStart(2, 2, SplitSpec());
  RegisterAll();
  JoinAll();
  for (size_t i = 0; i < sizes_.size(); ++i) AllRanksDoSize(static_cast<int>(i));
  Finish(0);
  ASSERT_GE(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).kind(), v1::FAILURE_KIND_INTERNAL);
  EXPECT_THAT(report().failures(0).message(), HasSubstr("0 of 3 rail sizes"));
}

TEST_F(TestRunRailsTest, ARailSizeWithoutSplitRailsFailsTheTest) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  RailSizeDone(2, 0, 100);
  ASSERT_GE(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).rank(), 2);
  EXPECT_THAT(report().failures(0).message(), HasSubstr("does not split rails"));
}

TEST_F(TestRunRailsTest, TheStepDeadlineNamesARankStuckInTheRailSweep) {
  CreateAndStart(2, 2, SplitSpec());
  RegisterAll();
  JoinAll();
  for (size_t i = 0; i < sizes_.size(); ++i) AllRanksDoSize(static_cast<int>(i));
  for (int r : {0, 1, 2}) RailSizeDone(r, 0, 100);
  executor_.AdvanceTime(kStep);
  ASSERT_GE(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).rank(), 3);
  EXPECT_THAT(report().failures(0).message(),
              HasSubstr(absl::StrCat("stuck at rail size ", sizes_[0])));
}

TEST_F(TestRunRailsTest, TheStragglerIsTheRankThatArrivesLast) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  // Rank 2 arrives 30 ms late at every call: every rank's time is ~30 ms.
  FullSweepWithArrivals(/*late=*/2, 30000);
  EXPECT_THAT(report().results(0).out_of_place().rank_arrival_us(),
              ElementsAre(3.0, 3.0, 30003.0, 3.0));
  FinishAll();
  AllNodesStopped();
  ASSERT_TRUE(report().has_slowest_rank());
  EXPECT_EQ(report().slowest_rank().rank(), 2);
  EXPECT_EQ(report().slowest_rank().node_name(), "node-b");
  EXPECT_EQ(report().slowest_rank().basis(), "arrival");
  EXPECT_DOUBLE_EQ(report().slowest_rank().mean_lag_us(), 30000);
  EXPECT_FALSE(report().arrivals().flat());
}

TEST_F(TestRunRailsTest, FlatArrivalsNameNobody) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  FullSweepWithArrivals(/*late=*/0, 0);
  FinishAll();
  AllNodesStopped();
  EXPECT_FALSE(report().has_slowest_rank());
  ASSERT_TRUE(report().has_arrivals());
  EXPECT_TRUE(report().arrivals().flat());
  EXPECT_EQ(report().arrivals().measurements(), 2 * static_cast<int>(sizes_.size()));
}

}  // namespace
}  // namespace eb::coordinator::test
