// The ranks' schedules (RankTiming.schedule) are untrusted input: checked
// field by field (CheckReportedSchedule) before any of them reaches culprit
// attribution, and kept per rank in the rows when every rank sent one.

#include <cmath>
#include <limits>
#include <string>

#include "coordinator/core/collective_tests/run_results.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/test_run_fixture.h"

namespace eb::coordinator::test {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::HasSubstr;

v1::RankSizeResult WithSchedule(double wall, double stalled, double cpu = 10, int64_t switches = 1,
                                double delay = 5, double throttled = 0) {
  v1::RankSizeResult result;
  for (v1::RankTiming* timing : {result.mutable_out_of_place(), result.mutable_in_place()}) {
    v1::RankSchedule& s = *timing->mutable_schedule();
    s.set_wall_us(wall);
    s.set_stalled_us(stalled);
    s.set_cpu_us(cpu);
    s.set_involuntary_switches(switches);
    s.set_run_delay_us(delay);
    s.set_throttled_us(throttled);
  }
  return result;
}

TEST(CheckReportedScheduleTest, AcceptsSaneValuesAndAnOlderWorkersNone) {
  EXPECT_TRUE(CheckReportedSchedule(WithSchedule(1000, 300)).ok());
  EXPECT_TRUE(CheckReportedSchedule(WithSchedule(1000, 300, 10, 1, 5, 1000)).ok());
  EXPECT_TRUE(CheckReportedSchedule(v1::RankSizeResult()).ok());
}

TEST(CheckReportedScheduleTest, RefusesNanNegativeAndOverRangeNamingTheField) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    v1::RankSizeResult result;
    std::string field;
  };
  const Case cases[] = {
      {WithSchedule(nan, 0), "out_of_place.schedule.wall_us"},
      {WithSchedule(-1, 0), "out_of_place.schedule.wall_us"},
      {WithSchedule(1e18, 0), "out_of_place.schedule.wall_us"},
      {WithSchedule(1000, inf), "out_of_place.schedule.stalled_us"},
      {WithSchedule(1000, 1001), "out_of_place.schedule.stalled_us"},
      {WithSchedule(1000, 0, -5), "out_of_place.schedule.cpu_us"},
      {WithSchedule(1000, 0, 10, -1), "out_of_place.schedule.involuntary_switches"},
      {WithSchedule(1000, 0, 10, 1, nan), "out_of_place.schedule.run_delay_us"},
      // A CPU limit's time is part of the window, as a stall is.
      {WithSchedule(1000, 0, 10, 1, 5, 1000.5), "out_of_place.schedule.throttled_us"},
      {WithSchedule(1000, 0, 10, 1, 5, -1), "out_of_place.schedule.throttled_us"},
  };
  for (const Case& c : cases) {
    const absl::Status status = CheckReportedSchedule(c.result);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.field;
    EXPECT_THAT(status.message(), HasSubstr(c.field + ":")) << status;
  }
  v1::RankSizeResult in_place_only = WithSchedule(1000, 0);
  in_place_only.mutable_in_place()->mutable_schedule()->set_stalled_us(-3);
  EXPECT_THAT(CheckReportedSchedule(in_place_only).message(),
              HasSubstr("in_place.schedule.stalled_us: -3 is not a number from 0 to 1000"));
}

class TestRunScheduleTest : public TestRunFixture {};

TEST_F(TestRunScheduleTest, ARankWithABadScheduleFailsTheTestNamingTheField) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  ebnccl::v1::WorkerEvent event = Event(2, v1::WORKER_EVENT_KIND_SIZE_DONE);
  *event.mutable_size_result() = RankResult(sizes_.at(0), sizes_.at(0) / 4, 100, 0, 0);
  event.mutable_size_result()->mutable_out_of_place()->mutable_schedule()->set_wall_us(
      std::nan(""));
  run_->OnWorkerEvent(NodeOf(2), event);
  ASSERT_GE(report().failures_size(), 1);
  EXPECT_EQ(report().failures(0).rank(), 2);
  EXPECT_THAT(report().failures(0).message(), HasSubstr("out_of_place.schedule.wall_us"));
}

}  // namespace
}  // namespace eb::coordinator::test
