// The limits agree between ebctl, the coordinator and the agent (issue 32,
// item 5; P2-2.7): a phase timeout at each edge of spec::kTimeoutRange is
// accepted by all three or refused by all three. ebctl and the coordinator
// used to take phase timeouts over a week that every agent then refused,
// failing the test and blaming a node.

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "agent/core/launch_check.h"
#include "common/spec/numbers.h"
#include "coordinator/core/collective_tests/spec_validator.h"
#include "coordinator/ebctl/input/duration_parse.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/coordinator_test_util.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;

bool EbctlAccepts(int64_t ms) {
  return ebctl::ParseTimeoutMs(absl::StrCat(ms, "ms"), "--step-timeout").ok();
}

bool CoordinatorAccepts(int64_t ms) {
  v1::TestSpec spec = test::SmallSweepSpec();
  spec.set_step_timeout_ms(ms);
  spec.set_launch_timeout_ms(ms);
  return ValidateAndNormalize(spec, CoordinatorConfig{}).ok();
}

bool AgentAccepts(int64_t ms) {
  v1::LaunchTest launch;
  launch.set_test_id("t-1");
  launch.mutable_spec()->set_min_bytes(1024);
  launch.mutable_spec()->set_max_bytes(1024);
  launch.add_sizes_bytes(1024);
  launch.set_register_timeout_ms(ms);
  launch.set_init_timeout_ms(ms);
  launch.set_op_timeout_ms(ms);
  v1::RankAssignment& rank = *launch.add_ranks();
  rank.set_rank(0);
  rank.set_world_size(1);
  rank.set_device_index(-1);
  return agent::CheckLaunch(launch, 1).ok();
}

TEST(TimeoutLimitsAgreeTest, P2_2_7_EbctlCoordinatorAndAgentAgreeAtEveryEdge) {
  const int64_t min = absl::ToInt64Milliseconds(spec::kTimeoutRange.min);
  const int64_t max = absl::ToInt64Milliseconds(spec::kTimeoutRange.max);
  for (int64_t ms : {min, min + 1, int64_t{60'000}, max - 1, max}) {
    EXPECT_TRUE(EbctlAccepts(ms)) << ms;
    EXPECT_TRUE(CoordinatorAccepts(ms)) << ms;
    EXPECT_TRUE(AgentAccepts(ms)) << ms;
  }
  for (int64_t ms : {max + 1, int64_t{99'999'999'999} * 3'600'000, INT64_MAX}) {
    EXPECT_FALSE(EbctlAccepts(ms)) << ms;
    EXPECT_FALSE(CoordinatorAccepts(ms)) << ms;
    EXPECT_FALSE(AgentAccepts(ms)) << ms;
  }
  // 0 is "unset" on the wire (the coordinator's default) and on ebctl's
  // command line ("" is unset, "0ms" is too small): never sent to an agent.
  EXPECT_FALSE(EbctlAccepts(0));
  EXPECT_FALSE(AgentAccepts(0));
  EXPECT_FALSE(CoordinatorAccepts(-1));
  EXPECT_FALSE(AgentAccepts(-1));
}

}  // namespace
}  // namespace eb::coordinator
