#include "coordinator/scheduler/borrow_planner.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/scheduler/scheduler_fixture.h"

namespace eb::scheduler {
namespace {

using testing::HoursAgo;
using testing::Node;

std::vector<BorrowCandidate> Candidates() {
  std::vector<BorrowCandidate> candidates = {
      {Node("a"), HoursAgo(2)},
      {Node("b", NodeState::kAllocated), HoursAgo(100)},  // a tenant's job
      {Node("c"), std::nullopt},                          // never judged
      {Node("d"), HoursAgo(30)},
      {Node("e", NodeState::kDrained, "maintenance"), HoursAgo(200)},
      {Node("f"), HoursAgo(30)},
  };
  return candidates;
}

std::string Refusals(const BorrowPlan& plan) {
  std::string text;
  for (const BorrowRefusal& r : plan.refused) text += r.node + ": " + r.why + "; ";
  return text;
}

TEST(BorrowPlannerTest, ACountTakesIdleNodesOldestEvidenceFirst) {
  BorrowRequest request;
  request.count = 3;
  const absl::StatusOr<BorrowPlan> plan = PlanBorrow(Candidates(), request);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->borrow, (std::vector<std::string>{"c", "d", "f"}));
  EXPECT_EQ(plan->short_by, 0);
}

TEST(BorrowPlannerTest, NamedNodesThatHoldAJobAreRefusedByName) {
  BorrowRequest request;
  request.nodes = {"a", "b", "e", "ghost"};
  const absl::StatusOr<BorrowPlan> plan = PlanBorrow(Candidates(), request);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->borrow, (std::vector<std::string>{"a"}));
  EXPECT_EQ(Refusals(*plan), "b: holds a job; e: drained; ghost: unknown to the scheduler; ");
}

TEST(BorrowPlannerTest, NeverMoreThanTheShareOfIdleNodesCountingOursHeld) {
  std::vector<BorrowCandidate> candidates = Candidates();
  candidates[0].node.held_by_us = true;  // a
  candidates[0].node.state = NodeState::kAllocated;
  BorrowRequest request;
  request.count = 4;
  request.max_idle_share = 0.5;  // 4 idle (a, c, d, f): 2, and a is held
  const absl::StatusOr<BorrowPlan> plan = PlanBorrow(candidates, request);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->borrow, (std::vector<std::string>{"c"}));
  EXPECT_EQ(plan->short_by, 3);
  EXPECT_EQ(Refusals(*plan), "d: over the share of idle nodes; f: over the share of idle nodes; ");
}

TEST(BorrowPlannerTest, RefusesABadRequest) {
  BorrowRequest both;
  both.nodes = {"a"};
  both.count = 1;
  EXPECT_EQ(PlanBorrow(Candidates(), both).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PlanBorrow(Candidates(), BorrowRequest()).status().code(),
            absl::StatusCode::kInvalidArgument);
  BorrowRequest share;
  share.count = 1;
  share.max_idle_share = 2;
  EXPECT_EQ(PlanBorrow(Candidates(), share).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace eb::scheduler
