// Which nodes a validation leaves out when a scheduler owns the fleet
// (issue 30: `ebctl validate` never runs a test on a node that holds a job).

#include "coordinator/scheduler/leave_out.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/scheduler/scheduler_fixture.h"

namespace eb::scheduler {
namespace {

using ::testing::HasSubstr;
using testing::Node;

TEST(LeaveOutTest, JobsOperatorDrainsAndUnknownNodesAreLeftOut) {
  std::vector<SchedulerNode> nodes = {
      Node("idle"),
      Node("tenant", NodeState::kAllocated),
      Node("draining", NodeState::kDraining, "operator: disk"),
      Node("operator", NodeState::kDrained, "bad fan | ticket 42"),
      Node("ours", NodeState::kDrained, "ebnccl v-1: rail 0 at 10% of expected"),
      Node("down", NodeState::kDown),
      Node("weird", NodeState::kUnknown),
  };
  SchedulerNode borrowed = Node("borrowed", NodeState::kAllocated);
  borrowed.held_by_us = true;
  nodes.push_back(borrowed);
  const auto out = NodesToLeaveOut(
      nodes, {"idle", "tenant", "draining", "operator", "ours", "down", "weird", "borrowed", "n9"},
      "ebnccl", "slurm");
  EXPECT_FALSE(out.contains("idle"));
  EXPECT_FALSE(out.contains("ours"));  // re-tested, to be resumed
  EXPECT_FALSE(out.contains("borrowed"));
  EXPECT_EQ(out.at("tenant"), "slurm: holds a job (allocated)");
  EXPECT_EQ(out.at("draining"), "slurm: holds a job (draining)");
  EXPECT_EQ(out.at("operator"), "slurm: drained by an operator: bad fan | ticket 42");
  EXPECT_THAT(out.at("down"), HasSubstr("slurm: down"));
  EXPECT_THAT(out.at("weird"), HasSubstr("slurm: unknown"));
  EXPECT_THAT(out.at("n9"), HasSubstr("not a node of the scheduler"));
  EXPECT_EQ(out.size(), 6u);
}

TEST(LeaveOutTest, OnlyTheNamesAskedAbout) {
  const auto out =
      NodesToLeaveOut({Node("a", NodeState::kAllocated), Node("b")}, {"b"}, "ebnccl", "slurm");
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace eb::scheduler
