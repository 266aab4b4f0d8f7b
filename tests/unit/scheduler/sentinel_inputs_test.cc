#include "coordinator/scheduler/sentinel_inputs.h"

#include <optional>
#include <set>
#include <string>
#include <utility>
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

// The rails a verdict covered (NodeVerdictRecord::rails).
NodeVerdictRecord OnRails(NodeVerdictRecord record, std::vector<int> rails) {
  record.rails = std::move(rails);
  return record;
}

TEST(SentinelInputsTest, EachRailIsDatedByTheLatestVerdictThatCoveredIt) {
  const std::vector<NodeVerdictRecord> verdicts = {
      Good("a", "v1", 20),                        // every rail (no per-rail results)
      OnRails(Good("a", "v2", 5), {0, 1, 2, 3}),  // split rails: its pair tests' four
      OnRails(Good("a", "v3", 2), {}),            // intra alone: no rail judged
      OnRails(Good("b", "v3", 2), {}),
      OnRails(Good("c", "v2", 5), {6, 9}),  // 9: no such rail here, ignored
  };
  const std::vector<SentinelNode> nodes =
      SentinelNodesFrom({Node("a"), Node("b"), Node("c")}, {"a", "b", "c"}, verdicts, kInputRails);
  ASSERT_EQ(nodes.size(), 3u);
  for (int rail = 0; rail < kInputRails; ++rail) {
    EXPECT_EQ(nodes[0].rail_evidence[rail], HoursAgo(rail < 4 ? 5 : 20)) << rail;
    EXPECT_FALSE(nodes[1].rail_evidence[rail].has_value()) << rail;
    EXPECT_EQ(nodes[2].rail_evidence[rail].has_value(), rail == 6) << rail;
  }
  // The node's verdict is its latest, whatever rails it covered.
  EXPECT_EQ(nodes[0].last_verdict, validation::Verdict::kHealthy);
  EXPECT_EQ(nodes[1].last_verdict, validation::Verdict::kHealthy);
}

TEST(SentinelInputsTest, ANodeHasItsOwnRailCountWhereItsAgentReportedOne) {
  // A 4-GPU node's four rails, all covered by its split pair tests: none of
  // them left never judged, as an 8-rail count would leave rails 4-7.
  const std::vector<NodeVerdictRecord> verdicts = {OnRails(Good("four", "v1", 3), {0, 1, 2, 3}),
                                                   Good("cpu", "v1", 3)};
  const std::vector<SentinelNode> nodes =
      SentinelNodesFrom({Node("four"), Node("cpu"), Node("eight")}, {"four", "cpu", "eight"},
                        verdicts, 1, {{"four", 4}, {"eight", 8}, {"cpu", 0}});
  ASSERT_EQ(nodes.size(), 3u);
  ASSERT_EQ(nodes[0].rail_evidence.size(), 4u);
  for (const std::optional<absl::Time>& rail : nodes[0].rail_evidence) {
    EXPECT_EQ(rail, HoursAgo(3));
  }
  ASSERT_EQ(nodes[1].rail_evidence.size(), 1u);  // 0 GPUs: the default, one rail
  EXPECT_EQ(nodes[1].rail_evidence[0], HoursAgo(3));
  EXPECT_EQ(nodes[2].rail_evidence.size(), 8u);
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
