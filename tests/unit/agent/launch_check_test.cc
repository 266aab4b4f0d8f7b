// The agent's check of a LaunchTest from the coordinator: the sweep and the
// workers' deadlines, refused with INVALID_ARGUMENT naming the field.

#include "agent/core/launch_check.h"

#include <string>

#include "common/transport/collective_layout.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::HasSubstr;
using ::testing::StartsWith;

v1::LaunchTest ValidLaunch() {
  v1::LaunchTest launch;
  launch.set_test_id("t-1");
  launch.mutable_spec()->set_min_bytes(1024);
  launch.mutable_spec()->set_max_bytes(4096);
  for (int64_t size : {1024, 2048, 4096}) launch.add_sizes_bytes(size);
  launch.set_init_timeout_ms(30'000);
  launch.set_op_timeout_ms(5'000);
  return launch;
}

std::string Refusal(const v1::LaunchTest& launch) {
  const absl::Status status = CheckLaunch(launch);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  return std::string(status.message());
}

TEST(LaunchCheckTest, AcceptsTheCoordinatorsSweep) {
  EXPECT_TRUE(CheckLaunch(ValidLaunch()).ok());
  v1::LaunchTest launch = ValidLaunch();
  launch.mutable_sizes_bytes()->Set(2, 3000);  // the sweep may end below max_bytes
  EXPECT_TRUE(CheckLaunch(launch).ok());
}

TEST(LaunchCheckTest, RefusesAMissingSweep) {
  // What an older coordinator sends.
  v1::LaunchTest launch = ValidLaunch();
  launch.clear_sizes_bytes();
  EXPECT_EQ(Refusal(launch), "sizes_bytes: no size to run");
}

TEST(LaunchCheckTest, RefusesTooManySizes) {
  v1::LaunchTest launch = ValidLaunch();
  launch.clear_sizes_bytes();
  for (int64_t i = 0; i <= transport::kMaxSweepSizes; ++i) launch.add_sizes_bytes(8);
  EXPECT_THAT(Refusal(launch), StartsWith("sizes_bytes: 10001 sizes"));
}

TEST(LaunchCheckTest, RefusesANegativeSize) {
  v1::LaunchTest launch = ValidLaunch();
  launch.mutable_sizes_bytes()->Set(1, -2048);
  EXPECT_EQ(Refusal(launch), "sizes_bytes: size #1 (-2048) is negative");
}

TEST(LaunchCheckTest, RefusesADecreasingSweep) {
  v1::LaunchTest launch = ValidLaunch();
  launch.mutable_sizes_bytes()->Set(2, 1536);
  EXPECT_EQ(Refusal(launch),
            "sizes_bytes: size #2 (1536) is smaller than the size before it (2048)");
}

TEST(LaunchCheckTest, RefusesASizeAboveTheSpecsMaximum) {
  v1::LaunchTest launch = ValidLaunch();
  launch.mutable_spec()->set_max_bytes(2048);
  EXPECT_THAT(Refusal(launch), HasSubstr("sizes_bytes: size #2 (4096) is larger than max_bytes"));
}

TEST(LaunchCheckTest, RefusesMissingWorkerDeadlines) {
  v1::LaunchTest launch = ValidLaunch();
  launch.set_init_timeout_ms(0);
  EXPECT_EQ(Refusal(launch), "init_timeout_ms: must be > 0, got 0");
  launch = ValidLaunch();
  launch.set_op_timeout_ms(-5);
  EXPECT_EQ(Refusal(launch), "op_timeout_ms: must be > 0, got -5");
}

// Found by tests/fuzz/agent_commands_fuzz: two workers of one rank, of which
// only one could ever be reaped, so the test never ended on this node.
TEST(LaunchCheckTest, RefusesARankAssignedTwice) {
  v1::LaunchTest launch = ValidLaunch();
  for (int local = 0; local < 2; ++local) {
    v1::RankAssignment& rank = *launch.add_ranks();
    rank.set_rank(3);
    rank.set_world_size(4);
    rank.set_local_rank(local);
  }
  EXPECT_EQ(Refusal(launch), "ranks: rank 3 is assigned twice");
}

}  // namespace
}  // namespace eb::agent
