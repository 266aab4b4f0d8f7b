#include <string>
#include <vector>

#include "coordinator/scheduler/decision.h"
#include "gtest/gtest.h"
#include "tests/unit/scheduler/scheduler_fixture.h"

namespace eb::scheduler {
namespace {

using testing::ActionFor;
using testing::Bad;
using testing::Fleet;
using testing::Input;
using testing::MustDecide;
using testing::Node;
using testing::V;
using validation::Verdict;

std::vector<std::string> Drained(const Decision& decision) {
  std::vector<std::string> nodes;
  for (const Action& action : decision.actions) {
    if (action.kind == ActionKind::kDrain) nodes.push_back(action.node);
  }
  return nodes;
}

std::vector<std::string> Guarded(const Decision& decision) {
  std::vector<std::string> nodes;
  for (const Action& action : decision.actions) {
    if (action.why == LeaveWhy::kBlastRadiusGuard) {
      EXPECT_EQ(action.reason.rfind("blast-radius guard", 0), 0u) << action.reason;
      EXPECT_TRUE(action.cause.has_value());
      nodes.push_back(action.node);
    }
  }
  return nodes;
}

TEST(BlastRadiusTest, AtMostTheFleetShareFailedFirstThenOldestEvidence) {
  // 20 nodes at 10%: 2 drains. Five bad: the failed one first, then the
  // oldest evidence.
  const Decision decision = MustDecide(
      Input(Fleet(20), {Bad("n1", "v-2", 1), Bad("n2", "v-1", 3), Bad("n3", "v-2", 1),
                        V("n4", Verdict::kFailed, "v-2", 1, "wrong data"), Bad("n5", "v-2", 1)}));
  EXPECT_EQ(Drained(decision), (std::vector<std::string>{"n2", "n4"}));
  EXPECT_EQ(Guarded(decision), (std::vector<std::string>{"n1", "n3", "n5"}));
  EXPECT_NE(ActionFor(decision, "n1").reason.find("2 of 20 fleet nodes"), std::string::npos)
      << ActionFor(decision, "n1").reason;
}

TEST(BlastRadiusTest, OurDrainsInPlaceCountOperatorsDoNot) {
  std::vector<SchedulerNode> nodes = Fleet(20);
  nodes[9] = Node("n10", NodeState::kDrained, "ebnccl v-0: slow");
  nodes[10] = Node("n11", NodeState::kDrained, "maintenance");
  nodes[11] = Node("n12", NodeState::kDrained, "hw: psu");
  const Decision decision =
      MustDecide(Input(nodes, {Bad("n1", "v-1", 1), Bad("n2", "v-1", 1), Bad("n10", "v-0", 5)}));
  EXPECT_EQ(Drained(decision), (std::vector<std::string>{"n1"}));
  EXPECT_EQ(Guarded(decision), (std::vector<std::string>{"n2"}));
}

TEST(BlastRadiusTest, AtMostTheGroupShare) {
  // 20 nodes in 2 groups of 10: at most 1 per group (10%), fleet share 50%.
  SchedulerPolicy policy;
  policy.max_drained_share = 0.5;
  const Decision decision = MustDecide(
      Input(Fleet(20, 2),
            {Bad("n2", "v-1", 1), Bad("n4", "v-1", 1), Bad("n6", "v-1", 1), Bad("n1", "v-1", 1)},
            policy));
  EXPECT_EQ(Drained(decision), (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(Guarded(decision), (std::vector<std::string>{"n4", "n6"}));
  EXPECT_NE(ActionFor(decision, "n4").reason.find("of group g0"), std::string::npos)
      << ActionFor(decision, "n4").reason;
}

TEST(BlastRadiusTest, ASmallFleetMayStillDrainOne) {
  // 6 nodes at 10% is 0.6: min_drains_allowed (1) lets one through.
  const Decision decision = MustDecide(Input(Fleet(6), {Bad("n1", "v-1", 1), Bad("n2", "v-1", 1)}));
  EXPECT_EQ(Drained(decision), (std::vector<std::string>{"n1"}));
  EXPECT_EQ(Guarded(decision), (std::vector<std::string>{"n2"}));
  SchedulerPolicy none;
  none.min_drains_allowed = 0;
  EXPECT_TRUE(Drained(MustDecide(Input(Fleet(6), {Bad("n1", "v-1", 1)}, none))).empty());
}

TEST(BlastRadiusTest, DryRunGuardsTheSame) {
  SchedulerPolicy dry;
  dry.dry_run = true;
  const Decision decision =
      MustDecide(Input(Fleet(10), {Bad("n1", "v-1", 1), Bad("n2", "v-1", 1)}, dry));
  EXPECT_EQ(Drained(decision), (std::vector<std::string>{"n1"}));
  EXPECT_EQ(Guarded(decision), (std::vector<std::string>{"n2"}));
  for (const Action& action : decision.actions) EXPECT_FALSE(action.execute);
}

}  // namespace
}  // namespace eb::scheduler
