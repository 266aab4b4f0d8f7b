#include "coordinator/scheduler/sentinel_inputs.h"

#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/scheduler/scheduler_fixture.h"

namespace eb::scheduler {
namespace {

using testing::Bad;
using testing::Good;
using testing::HoursAgo;
using testing::kNow;
using testing::Node;
using testing::V;

constexpr int kInputRails = 8;

TEST(SentinelInputsTest, OnlyNodesEbncclCanTestInTheSchedulersOrder) {
  const std::vector<SentinelNode> nodes =
      SentinelNodesFrom({Node("c"), Node("a", NodeState::kAllocated), Node("no-agent")},
                        {"a", "c", "not-in-slurm"}, {}, kInputRails);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].node.name, "c");
  EXPECT_EQ(nodes[1].node.name, "a");
  EXPECT_EQ(nodes[1].node.state, NodeState::kAllocated);  // the scheduler's view, kept
  // Never judged: every rail without evidence, no verdict.
  EXPECT_EQ(nodes[0].rail_evidence.size(), static_cast<size_t>(kInputRails));
  EXPECT_FALSE(nodes[0].rail_evidence[3].has_value());
  EXPECT_FALSE(nodes[0].last_verdict.has_value());
}

TEST(SentinelInputsTest, TheLatestJudgingVerdictDatesEveryRail) {
  const std::vector<NodeVerdictRecord> verdicts = {
      Bad("a", "v1", 30),
      Good("a", "v2", 10),
      V("a", validation::Verdict::kUntestable, "v3", 1),  // judged nothing
      Good("b", "v1", 30),
      Bad("b", "v2", 12),
  };
  const std::vector<SentinelNode> nodes =
      SentinelNodesFrom({Node("a"), Node("b")}, {"a", "b"}, verdicts, kInputRails);
  ASSERT_EQ(nodes.size(), 2u);
  for (const std::optional<absl::Time>& rail : nodes[0].rail_evidence) {
    EXPECT_EQ(rail, HoursAgo(10));
  }
  EXPECT_EQ(nodes[0].last_verdict, validation::Verdict::kHealthy);
  EXPECT_EQ(nodes[1].rail_evidence[7], HoursAgo(12));
  EXPECT_EQ(nodes[1].last_verdict, validation::Verdict::kDegraded);
}

TEST(SentinelInputsTest, ASuspectVerdictIsEvidenceButNeverMakesAPartner) {
  const std::vector<NodeVerdictRecord> verdicts = {
      Good("a", "v1", 20),
      V("a", validation::Verdict::kHealthy, "v2", 2, "fine", validation::Confidence::kSuspect),
      // Two records of one instant: the worse counts.
      Good("b", "v1", 3), Bad("b", "v1", 3)};
  const std::vector<SentinelNode> nodes =
      SentinelNodesFrom({Node("a"), Node("b")}, {"a", "b"}, verdicts, kInputRails);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].rail_evidence[0], HoursAgo(2));
  EXPECT_FALSE(nodes[0].last_verdict.has_value());
  EXPECT_EQ(nodes[1].last_verdict, validation::Verdict::kDegraded);
}

TEST(SentinelInputsTest, FeedsThePlanner) {
  const std::vector<NodeVerdictRecord> verdicts = {Good("old", "v1", 21), Good("fresh", "v2", 2),
                                                   Bad("slow", "v2", 2)};
  const std::vector<SentinelNode> nodes =
      SentinelNodesFrom({Node("old"), Node("fresh"), Node("slow"), Node("new")},
                        {"old", "fresh", "slow", "new"}, verdicts, kInputRails);
  SentinelPolicy policy;
  policy.max_idle_share = 1;
  const absl::StatusOr<SentinelPlan> plan = PlanSentinel(nodes, policy, kNow);
  ASSERT_TRUE(plan.ok()) << plan.status();
  // "new" was never judged: first, with the oldest known good ("old", due
  // itself); slow is not a partner and not due.
  ASSERT_EQ(plan->probes.size(), 1u);
  EXPECT_EQ(plan->probes[0].node, "new");
  EXPECT_EQ(plan->probes[0].partner, "old");
}

}  // namespace
}  // namespace eb::scheduler
