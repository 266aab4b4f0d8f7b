// The ranks' GPU throttle counters (RankTiming.gpu_throttle) are untrusted
// input: checked field by field (CheckReportedGpuThrottle) before they
// reach culprit attribution, carried per rank in the rows, summarised in
// the report, and a GPU throttled alone is the test's culprit.

#include <cmath>
#include <limits>
#include <string>

#include "coordinator/core/collective_tests/gpu_throttle_check.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/test_run_fixture.h"

namespace eb::coordinator::test {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::HasSubstr;

v1::RankSizeResult WithGpu(double wall, double thermal, double power = 0, double idle = 0) {
  v1::RankSizeResult result;
  for (v1::RankTiming* timing : {result.mutable_out_of_place(), result.mutable_in_place()}) {
    v1::GpuThrottle& g = *timing->mutable_gpu_throttle();
    g.set_wall_us(wall);
    g.set_thermal_us(thermal);
    g.set_power_us(power);
    g.set_low_utilization_us(idle);
    g.set_reasons(0x40);
    g.set_reasons_read(true);
  }
  return result;
}

TEST(CheckReportedGpuThrottleTest, AcceptsSaneValuesAndNone) {
  EXPECT_TRUE(CheckReportedGpuThrottle(WithGpu(1000, 1000, 300, 0)).ok());
  EXPECT_TRUE(CheckReportedGpuThrottle(v1::RankSizeResult()).ok());
}

TEST(CheckReportedGpuThrottleTest, RefusesNanNegativeAndOverTheWallNamingTheField) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    v1::RankSizeResult result;
    std::string field;
  };
  const Case cases[] = {
      {WithGpu(nan, 0), "out_of_place.gpu_throttle.wall_us"},
      {WithGpu(-1, 0), "out_of_place.gpu_throttle.wall_us"},
      {WithGpu(1e18, 0), "out_of_place.gpu_throttle.wall_us"},
      {WithGpu(1000, inf), "out_of_place.gpu_throttle.thermal_us"},
      {WithGpu(1000, 1001), "out_of_place.gpu_throttle.thermal_us"},
      {WithGpu(1000, 0, -5), "out_of_place.gpu_throttle.power_us"},
      {WithGpu(1000, 0, 0, nan), "out_of_place.gpu_throttle.low_utilization_us"},
  };
  for (const Case& c : cases) {
    const absl::Status status = CheckReportedGpuThrottle(c.result);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.field;
    EXPECT_THAT(status.message(), HasSubstr(c.field + ":")) << status;
  }
  v1::RankSizeResult in_place_only = WithGpu(1000, 0);
  in_place_only.mutable_in_place()->mutable_gpu_throttle()->set_reliability_us(2000);
  EXPECT_THAT(CheckReportedGpuThrottle(in_place_only).message(),
              HasSubstr("in_place.gpu_throttle.reliability_us: 2000 is not a number from 0 to "
                        "1000"));
}

class TestRunGpuThrottleTest : public TestRunFixture {
 protected:
  // Every size, rank `throttled`'s GPU held back by its thermal limit 40 %
  // of a 100 ms batch; the others' not at all; rank `silent` sends none.
  void RunSweepWithGpus(int throttled, int silent) {
    RegisterAll();
    JoinAll();
    for (size_t i = 0; i < sizes_.size(); ++i) {
      for (int r = 0; r < world_size_; ++r) {
        v1::WorkerEvent event = Event(r, v1::WORKER_EVENT_KIND_SIZE_DONE);
        const int64_t size = sizes_.at(i);
        *event.mutable_size_result() = RankResult(size, size / 4, 100, 0, 0);
        if (r != silent) {
          const v1::RankSizeResult gpu = WithGpu(100000, r == throttled ? 40000 : 0);
          *event.mutable_size_result()->mutable_out_of_place()->mutable_gpu_throttle() =
              gpu.out_of_place().gpu_throttle();
          *event.mutable_size_result()->mutable_in_place()->mutable_gpu_throttle() =
              gpu.in_place().gpu_throttle();
        }
        event.mutable_size_result()->set_collective(collectives_.at(i));
        run_->OnWorkerEvent(NodeOf(r), event);
      }
    }
    FinishAll();
    AllNodesStopped();
  }
};

TEST_F(TestRunGpuThrottleTest, ARankWithABadGpuThrottleFailsTheTestNamingTheField) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  v1::WorkerEvent event = Event(1, v1::WORKER_EVENT_KIND_SIZE_DONE);
  *event.mutable_size_result() = RankResult(sizes_.at(0), sizes_.at(0) / 4, 100, 0, 0);
  *event.mutable_size_result()->mutable_in_place()->mutable_gpu_throttle() =
      WithGpu(1000, 5000).in_place().gpu_throttle();
  run_->OnWorkerEvent(NodeOf(1), event);
  ASSERT_GE(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).rank(), 1);
  EXPECT_THAT(report().failures(0).message(), HasSubstr("in_place.gpu_throttle.thermal_us"));
}

// Carried per rank (an empty one for the rank that sent none), summarised,
// and the throttled GPU named as the culprit.
TEST_F(TestRunGpuThrottleTest, AThrottledGpuIsCarriedSummarisedAndNamed) {
  CreateAndStart();
  RunSweepWithGpus(/*throttled=*/3, /*silent=*/0);
  ASSERT_GE(report().results_size(), 1);
  const v1::VariantResult& row = report().results(0).out_of_place();
  ASSERT_EQ(row.rank_gpu_throttle_size(), 4);
  EXPECT_EQ(row.rank_gpu_throttle(0).wall_us(), 0);
  EXPECT_EQ(row.rank_gpu_throttle(3).thermal_us(), 40000);
  ASSERT_TRUE(report().has_gpu_throttle());
  EXPECT_DOUBLE_EQ(report().gpu_throttle().rank_throttled_pct(0), -1);
  EXPECT_DOUBLE_EQ(report().gpu_throttle().rank_throttled_pct(3), 40);
  EXPECT_EQ(report().gpu_throttle().rank_policy(3), "thermal");
  EXPECT_FALSE(report().gpu_throttle().flat());
  EXPECT_EQ(report().culprit(), v1::CULPRIT_GPU_THROTTLED);
  EXPECT_EQ(report().slowest_rank().rank(), 3);
  EXPECT_EQ(report().slowest_rank().basis(), "gpu_throttled");
  EXPECT_EQ(report().culprit_node(), NodeOf(3));
  EXPECT_THAT(report().culprit_reason(), HasSubstr("held below its clocks 40.0%"));
}

}  // namespace
}  // namespace eb::coordinator::test
