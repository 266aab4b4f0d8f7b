// The sweep as the coordinator plans it (PlanSweep) and sends it
// (LaunchTest.sizes_bytes).

#include <string>
#include <vector>

#include "coordinator/core/sweep_plan.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/test_run_fixture.h"

namespace eb::coordinator::test {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

std::vector<int64_t> Field(const std::vector<PlannedSize>& plan, int64_t PlannedSize::*field) {
  std::vector<int64_t> values;
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

class TestRunSweepTest : public TestRunFixture {};

TEST_F(TestRunSweepTest, EveryNodeIsSentTheOneSweep) {
  CreateAndStart(/*num_nodes=*/3, /*per_node=*/1);
  const auto launches = host_.Launches();
  ASSERT_THAT(launches, SizeIs(3));
  for (const auto& [node, launch] : launches) {
    EXPECT_THAT(launch.sizes_bytes(), ElementsAre(1024, 2048, 4096)) << node;
  }
}

}  // namespace
}  // namespace eb::coordinator::test
