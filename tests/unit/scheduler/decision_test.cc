#include "coordinator/scheduler/decision.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/scheduler/scheduler_fixture.h"

namespace eb::scheduler {
namespace {

using testing::ActionFor;
using testing::Bad;
using testing::Fleet;
using testing::Good;
using testing::Input;
using testing::MustDecide;
using testing::Node;
using testing::V;
using validation::Confidence;
using validation::Verdict;

TEST(DecisionTest, ConfirmedDegradedDrainsWithPrefixValidationAndEvidence) {
  const Decision decision =
      MustDecide(Input(Fleet(), {Bad("n1", "v-20261206-1200-ab12", 1), Good("n2", "v-1", 1)}));
  ASSERT_EQ(decision.actions.size(), 1u);
  const Action& drain = decision.actions[0];
  EXPECT_EQ(drain.kind, ActionKind::kDrain);
  EXPECT_EQ(drain.node, "n1");
  EXPECT_EQ(drain.reason, "ebnccl v-20261206-1200-ab12: rail 3 at 52% of expected");
  ASSERT_TRUE(drain.cause.has_value());
  EXPECT_EQ(drain.cause->validation_id, "v-20261206-1200-ab12");
  EXPECT_EQ(drain.cause->evidence, "rail 3 at 52% of expected");
  EXPECT_EQ(drain.cause->time, testing::HoursAgo(1));
  EXPECT_TRUE(drain.execute);
  EXPECT_FALSE(drain.node_has_job);
  EXPECT_FALSE(drain.repeat_offender);
  EXPECT_TRUE(decision.findings.empty());
}

// What each node's own verdicts (oldest first) lead to, for an idle node.
struct VerdictCase {
  std::string name;
  std::vector<NodeVerdictRecord> verdicts;
  SchedulerPolicy policy;
  ActionKind kind;
  LeaveWhy why;
};

SchedulerPolicy Confirmations(int n) {
  SchedulerPolicy policy;
  policy.confirmations_to_drain = n;
  return policy;
}
SchedulerPolicy DrainUnfit() {
  SchedulerPolicy policy;
  policy.drain_unfit = true;
  return policy;
}

TEST(DecisionTest, WhatTheVerdictsOfAnIdleNodeLeadTo) {
  const auto suspect = V("n1", Verdict::kDegraded, "v-2", 1, "slow once", Confidence::kSuspect);
  const auto failed = V("n1", Verdict::kFailed, "v-2", 1, "wrong data on rank 3");
  const auto unfit = V("n1", Verdict::kUnfit, "v-2", 1, "driver 550 vs fleet 560");
  const auto untestable = V("n1", Verdict::kUntestable, "v-2", 1, "agent lost");
  const VerdictCase cases[] = {
      {"healthy: nothing", {Good("n1", "v-1", 1)}, {}, ActionKind::kLeave, LeaveWhy::kNone},
      {"no verdict: nothing", {}, {}, ActionKind::kLeave, LeaveWhy::kNone},
      {"confirmed failed drains", {failed}, {}, ActionKind::kDrain, LeaveWhy::kNone},
      {"suspect never drains", {suspect}, {}, ActionKind::kLeave, LeaveWhy::kSuspectOnly},
      {"two suspects never drain",
       {V("n1", Verdict::kFailed, "v-1", 2, "x", Confidence::kSuspect), suspect},
       {},
       ActionKind::kLeave,
       LeaveWhy::kSuspectOnly},
      {"untestable never counts", {untestable}, {}, ActionKind::kLeave, LeaveWhy::kNone},
      {"untestable after bad: still bad",
       {Bad("n1", "v-1", 2), untestable},
       {},
       ActionKind::kDrain,
       LeaveWhy::kNone},
      {"unfit: left by default", {unfit}, {}, ActionKind::kLeave, LeaveWhy::kUnfitNotDrained},
      {"unfit: drained when the policy says",
       {unfit},
       DrainUnfit(),
       ActionKind::kDrain,
       LeaveWhy::kNone},
      {"one of two confirmations",
       {Bad("n1", "v-1", 1)},
       Confirmations(2),
       ActionKind::kLeave,
       LeaveWhy::kAwaitingConfirmations},
      {"two confirmations from two validations",
       {Bad("n1", "v-1", 2), Bad("n1", "v-2", 1)},
       Confirmations(2),
       ActionKind::kDrain,
       LeaveWhy::kNone},
      {"two records of one validation are one confirmation",
       {Bad("n1", "v-1", 1), Bad("n1", "v-1", 1)},
       Confirmations(2),
       ActionKind::kLeave,
       LeaveWhy::kAwaitingConfirmations},
      {"a pass between resets the count",
       {Bad("n1", "v-1", 3), Good("n1", "v-2", 2), Bad("n1", "v-3", 1)},
       Confirmations(2),
       ActionKind::kLeave,
       LeaveWhy::kAwaitingConfirmations},
      {"recovered: nothing",
       {Bad("n1", "v-1", 2), Good("n1", "v-2", 1)},
       {},
       ActionKind::kLeave,
       LeaveWhy::kNone},
      {"stale evidence never drains",
       {Bad("n1", "v-1", 25)},
       {},
       ActionKind::kLeave,
       LeaveWhy::kStaleEvidence},
  };
  for (const VerdictCase& c : cases) {
    SCOPED_TRACE(c.name);
    const Decision decision = MustDecide(Input(Fleet(), c.verdicts, c.policy));
    const Action action = ActionFor(decision, "n1");
    EXPECT_EQ(action.kind, c.kind) << action.reason;
    EXPECT_EQ(action.why, c.why) << action.reason;
    if (c.kind == ActionKind::kLeave && c.why == LeaveWhy::kNone) {
      EXPECT_EQ(action.reason, "none");  // no action at all
    }
  }
}

TEST(DecisionTest, VerdictOrderDoesNotMatter) {
  std::vector<NodeVerdictRecord> verdicts = {Bad("n1", "v-1", 50), Good("n1", "v-2", 40),
                                             Bad("n1", "v-3", 3),  Bad("n2", "v-3", 3),
                                             Good("n3", "v-3", 3), Good("n2", "v-4", 1)};
  const Decision first = MustDecide(Input(Fleet(), verdicts));
  std::mt19937 rng(7);
  for (int i = 0; i < 10; ++i) {
    std::shuffle(verdicts.begin(), verdicts.end(), rng);
    const Decision again = MustDecide(Input(Fleet(), verdicts));
    ASSERT_EQ(again.actions.size(), first.actions.size());
    for (size_t a = 0; a < first.actions.size(); ++a) {
      EXPECT_EQ(again.actions[a].node, first.actions[a].node);
      EXPECT_EQ(again.actions[a].kind, first.actions[a].kind);
      EXPECT_EQ(again.actions[a].reason, first.actions[a].reason);
    }
  }
}

TEST(DecisionTest, AnOperatorsDrainIsNeverTouched) {
  std::vector<SchedulerNode> nodes = Fleet();
  nodes[0] = Node("n1", NodeState::kDrained, "maintenance: fan 2");
  nodes[1] = Node("n2", NodeState::kDrained, "ebncclx v-1: another tool");
  nodes[2] = Node("n3", NodeState::kDraining, "");
  nodes[3] = Node("n4", NodeState::kDrained, "rma");
  const Decision decision =
      MustDecide(Input(nodes, {Bad("n1", "v-1", 1), Good("n2", "v-1", 1), Good("n2", "v-2", 0.5),
                               Bad("n3", "v-1", 1),
                               V("n4", Verdict::kDegraded, "v-1", 1, "x", Confidence::kSuspect)}));
  EXPECT_EQ(ActionFor(decision, "n1").why, LeaveWhy::kOperatorDrained);
  EXPECT_NE(ActionFor(decision, "n1").reason.find("maintenance: fan 2"), std::string::npos);
  EXPECT_EQ(ActionFor(decision, "n2").reason, "none");  // passes, but not ours to resume
  EXPECT_EQ(ActionFor(decision, "n3").why, LeaveWhy::kOperatorDrained);
  EXPECT_EQ(ActionFor(decision, "n4").why, LeaveWhy::kOperatorDrained);
  for (const Action& action : decision.actions) EXPECT_EQ(action.kind, ActionKind::kLeave);
}

TEST(DecisionTest, ANodeWithAJobIsDrainedAndKeepsItsJob) {
  std::vector<SchedulerNode> nodes = Fleet();
  nodes[0].state = NodeState::kAllocated;
  nodes[1].state = NodeState::kDown;
  nodes[2].state = NodeState::kUnknown;
  const Decision decision =
      MustDecide(Input(nodes, {Bad("n1", "v-1", 1), Bad("n2", "v-1", 1), Bad("n3", "v-1", 1)}));
  const Action allocated = ActionFor(decision, "n1");
  EXPECT_EQ(allocated.kind, ActionKind::kDrain);
  EXPECT_TRUE(allocated.node_has_job);
  EXPECT_EQ(ActionFor(decision, "n2").why, LeaveWhy::kSchedulerUnavailable);
  EXPECT_EQ(ActionFor(decision, "n3").why, LeaveWhy::kSchedulerUnavailable);
}

// A node drained by us (its reason ours), and what its verdicts lead to.
struct ResumeCase {
  std::string name;
  std::vector<NodeVerdictRecord> verdicts;
  int passes_to_resume;
  ActionKind kind;
  LeaveWhy why;
};

TEST(DecisionTest, ResumeOnlyAfterPassesAndNeverAFlappingNode) {
  const auto suspect = V("n1", Verdict::kDegraded, "v-4", 0.5, "once", Confidence::kSuspect);
  const ResumeCase cases[] = {
      {"no pass yet", {Bad("n1", "v-1", 2)}, 1, ActionKind::kLeave, LeaveWhy::kAlreadyDrained},
      {"one pass resumes",
       {Bad("n1", "v-1", 2), Good("n1", "v-2", 1)},
       1,
       ActionKind::kResume,
       LeaveWhy::kNone},
      {"one of two passes",
       {Bad("n1", "v-1", 2), Good("n1", "v-2", 1)},
       2,
       ActionKind::kLeave,
       LeaveWhy::kAwaitingPasses},
      {"two passes",
       {Bad("n1", "v-1", 3), Good("n1", "v-2", 2), Good("n1", "v-3", 1)},
       2,
       ActionKind::kResume,
       LeaveWhy::kNone},
      {"a suspect after the pass restarts the count",
       {Bad("n1", "v-1", 3), Good("n1", "v-2", 2), suspect},
       1,
       ActionKind::kLeave,
       LeaveWhy::kAlreadyDrained},
      {"untestable is not a pass",
       {Bad("n1", "v-1", 2), V("n1", Verdict::kUntestable, "v-2", 1, "agent lost")},
       1,
       ActionKind::kLeave,
       LeaveWhy::kAlreadyDrained},
      {"bad, good, bad within the window, then good: repeat offender",
       {Bad("n1", "v-1", 72), Good("n1", "v-2", 48), Bad("n1", "v-3", 24), Good("n1", "v-4", 1)},
       1,
       ActionKind::kLeave,
       LeaveWhy::kRepeatOffender},
      {"the first bad out of the window: resumed",
       {Bad("n1", "v-1", 24 * 8), Good("n1", "v-2", 48), Bad("n1", "v-3", 24),
        Good("n1", "v-4", 1)},
       1,
       ActionKind::kResume,
       LeaveWhy::kNone},
      {"an episode that began before the window still counts",
       {Bad("n1", "v-1", 24 * 8), Bad("n1", "v-1b", 24 * 6), Good("n1", "v-2", 48),
        Bad("n1", "v-3", 24), Good("n1", "v-4", 1)},
       1,
       ActionKind::kLeave,
       LeaveWhy::kRepeatOffender},
      {"no verdict known", {}, 1, ActionKind::kLeave, LeaveWhy::kNoEvidence},
  };
  for (const ResumeCase& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<SchedulerNode> nodes = Fleet();
    nodes[0] = Node("n1", NodeState::kDrained, "ebnccl v-1: rail 3 at 52% of expected");
    SchedulerPolicy policy;
    policy.passes_to_resume = c.passes_to_resume;
    const Decision decision = MustDecide(Input(nodes, c.verdicts, policy));
    const Action action = ActionFor(decision, "n1");
    EXPECT_EQ(action.kind, c.kind) << action.reason;
    EXPECT_EQ(action.why, c.why) << action.reason;
    EXPECT_EQ(action.repeat_offender, c.why == LeaveWhy::kRepeatOffender);
    if (c.kind == ActionKind::kResume) {
      ASSERT_TRUE(action.cause.has_value());
      EXPECT_EQ(action.cause->evidence, "fine");
    }
  }
}

TEST(DecisionTest, AFlappingNodeIsDrainedAsARepeatOffender) {
  const Decision decision = MustDecide(
      Input(Fleet(), {Bad("n1", "v-1", 72), Good("n1", "v-2", 48), Bad("n1", "v-3", 1)}));
  const Action action = ActionFor(decision, "n1");
  EXPECT_EQ(action.kind, ActionKind::kDrain);
  EXPECT_TRUE(action.repeat_offender);
  EXPECT_EQ(action.reason, "ebnccl v-3: repeat offender: rail 3 at 52% of expected");
}

TEST(DecisionTest, AFleetWideSlowdownIsOneFindingNotDrains) {
  std::vector<NodeVerdictRecord> verdicts;
  for (int i = 1; i <= 6; ++i) verdicts.push_back(Bad("n" + std::to_string(i), "v-9", 1));
  verdicts.push_back(V("n7", Verdict::kFailed, "v-9", 1, "wrong data"));
  const Decision decision = MustDecide(Input(Fleet(7), verdicts));
  ASSERT_EQ(decision.findings.size(), 1u);
  EXPECT_EQ(decision.findings[0].kind, FindingKind::kFleetWideSlowdown);
  EXPECT_EQ(decision.findings[0].validation_id, "v-9");
  EXPECT_NE(decision.findings[0].text.find("6 of 7"), std::string::npos)
      << decision.findings[0].text;
  for (int i = 1; i <= 6; ++i) {
    EXPECT_EQ(ActionFor(decision, "n" + std::to_string(i)).why, LeaveWhy::kFleetWideSlowdown);
  }
  // Wrong data is not slowness: the failed node is still drained.
  EXPECT_EQ(ActionFor(decision, "n7").kind, ActionKind::kDrain);
}

TEST(DecisionTest, ARoundThatRetestsOnlyTheSuspectsIsNotAFleetWideSlowdown) {
  // 3 of 3 judged nodes slow, but 3 of 20 is not the fleet (coverage 50%).
  SchedulerPolicy policy;
  policy.max_drained_share = 0.5;
  const Decision decision = MustDecide(
      Input(Fleet(20), {Bad("n1", "v-9", 1), Bad("n2", "v-9", 1), Bad("n3", "v-9", 1)}, policy));
  EXPECT_TRUE(decision.findings.empty());
  for (const char* node : {"n1", "n2", "n3"}) {
    EXPECT_EQ(ActionFor(decision, node).kind, ActionKind::kDrain) << node;
  }
}

TEST(DecisionTest, HalfTheFleetSlowIsNotAFleetWideSlowdown) {
  SchedulerPolicy policy;
  policy.max_drained_share = 1;
  const Decision decision = MustDecide(
      Input(Fleet(4),
            {Bad("n1", "v-9", 1), Bad("n2", "v-9", 1), Good("n3", "v-9", 1), Good("n4", "v-9", 1)},
            policy));
  EXPECT_TRUE(decision.findings.empty());
  EXPECT_EQ(ActionFor(decision, "n1").kind, ActionKind::kDrain);
  EXPECT_EQ(ActionFor(decision, "n2").kind, ActionKind::kDrain);
}

TEST(DecisionTest, NodesOneSideDoesNotKnowAreReportedNeverGuessed) {
  DecisionInput input = Input(Fleet(3), {Bad("n1.cluster", "v-1", 1), Bad("n3", "v-1", 1)});
  input.ebnccl_nodes = {"n1.cluster", "n2", "n9"};  // n3 is the scheduler's only
  const Decision decision = MustDecide(input);
  EXPECT_TRUE(decision.actions.empty());  // n3 is bad, but not in ebnccl's fleet
  std::vector<std::string> findings;
  for (const Finding& f : decision.findings) {
    findings.push_back(FindingKindName(f.kind) + " " + f.node);
  }
  EXPECT_EQ(findings, (std::vector<std::string>{"unknown to the scheduler n1.cluster",
                                                "unknown to the scheduler n9",
                                                "unknown to ebnccl n1", "unknown to ebnccl n3"}));
}

// Carries out a decision on the scheduler's view, as a backend would.
std::vector<SchedulerNode> Apply(std::vector<SchedulerNode> nodes, const Decision& decision) {
  for (const Action& action : decision.actions) {
    for (SchedulerNode& node : nodes) {
      if (node.name != action.node) continue;
      if (action.kind == ActionKind::kDrain) {
        node.state =
            node.state == NodeState::kAllocated ? NodeState::kDraining : NodeState::kDrained;
        node.reason = action.reason;
      } else if (action.kind == ActionKind::kResume) {
        node.state = NodeState::kIdle;
        node.reason.clear();
      }
    }
  }
  return nodes;
}

int Count(const Decision& decision, ActionKind kind) {
  return static_cast<int>(std::count_if(decision.actions.begin(), decision.actions.end(),
                                        [&](const Action& a) { return a.kind == kind; }));
}

TEST(DecisionTest, DecidingAgainAfterCarryingOutGivesNoSecondAction) {
  std::vector<SchedulerNode> nodes = Fleet();
  nodes[1] = Node("n2", NodeState::kDrained, "ebnccl v-0: rail 1 at 40% of expected");
  nodes[2].state = NodeState::kAllocated;
  const std::vector<NodeVerdictRecord> verdicts = {Bad("n1", "v-1", 1), Bad("n2", "v-0", 5),
                                                   Good("n2", "v-1", 1), Bad("n3", "v-1", 1)};
  SchedulerPolicy policy;
  policy.max_drained_share = 0.5;
  const Decision first = MustDecide(Input(nodes, verdicts, policy));
  EXPECT_EQ(Count(first, ActionKind::kDrain), 2);   // n1, n3
  EXPECT_EQ(Count(first, ActionKind::kResume), 1);  // n2
  const Decision same = MustDecide(Input(nodes, verdicts, policy));
  EXPECT_EQ(same.actions.size(), first.actions.size());

  const std::vector<SchedulerNode> after = Apply(nodes, first);
  const Decision second = MustDecide(Input(after, verdicts, policy));
  EXPECT_EQ(Count(second, ActionKind::kDrain), 0);
  EXPECT_EQ(Count(second, ActionKind::kResume), 0);
  EXPECT_EQ(ActionFor(second, "n1").why, LeaveWhy::kAlreadyDrained);
  EXPECT_EQ(ActionFor(second, "n3").why, LeaveWhy::kAlreadyDrained);
  EXPECT_EQ(ActionFor(second, "n2").reason, "none");  // resumed, healthy: nothing to do
}

TEST(DecisionTest, DryRunDecidesTheSameAndCarriesOutNothing) {
  std::vector<SchedulerNode> nodes = Fleet();
  nodes[1] = Node("n2", NodeState::kDrained, "ebnccl v-0: slow");
  const std::vector<NodeVerdictRecord> verdicts = {Bad("n1", "v-1", 1), Bad("n2", "v-0", 5),
                                                   Good("n2", "v-1", 1)};
  SchedulerPolicy dry;
  dry.dry_run = true;
  const Decision real = MustDecide(Input(nodes, verdicts));
  const Decision dry_run = MustDecide(Input(nodes, verdicts, dry));
  EXPECT_TRUE(dry_run.dry_run);
  EXPECT_FALSE(real.dry_run);
  ASSERT_EQ(dry_run.actions.size(), real.actions.size());
  for (size_t i = 0; i < real.actions.size(); ++i) {
    EXPECT_EQ(dry_run.actions[i].kind, real.actions[i].kind);
    EXPECT_EQ(dry_run.actions[i].reason, real.actions[i].reason);
    EXPECT_TRUE(real.actions[i].execute);
    EXPECT_FALSE(dry_run.actions[i].execute);
  }
}

TEST(DecisionTest, ReasonOfUntrustedEvidenceIsBoundedAndPrintable) {
  const Decision decision = MustDecide(Input(
      Fleet(),
      {V("n1", Verdict::kFailed, "v-1\nx", 1, "NCCL said:\n\x1b[2J" + std::string(5000, 'z'))}));
  const Action action = ActionFor(decision, "n1");
  ASSERT_EQ(action.kind, ActionKind::kDrain);
  EXPECT_LE(action.reason.size(), 256u);
  EXPECT_EQ(action.reason.rfind("ebnccl v-1 x: NCCL said: [2Jzzz", 0), 0u) << action.reason;
  EXPECT_EQ(action.reason.substr(action.reason.size() - 3), "...");
  EXPECT_EQ(action.cause->validation_id, "v-1 x");
  EXPECT_LE(action.cause->evidence.size(), 256u);
}

TEST(DecisionTest, AuditLinesNameTheActionTheNodeAndTheCause) {
  std::vector<SchedulerNode> nodes = Fleet(10);
  nodes[2].state = NodeState::kAllocated;
  nodes[2].held_by_us = true;  // our borrow job holds it
  SchedulerPolicy dry;
  dry.dry_run = true;
  const Decision decision =
      MustDecide(Input(nodes, {Bad("n3", "v-1", 1), Bad("n4", "v-1", 1)}, dry));
  std::vector<std::string> lines;
  for (const Action& action : decision.actions) lines.push_back(AuditLine(action));
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "drain n3: ebnccl v-1: rail 3 at 52% of expected (cause v-1 at "
                       "2026-12-06T11:00:00Z: rail 3 at 52% of expected) [dry run]",
                       "leave n4 (blast-radius guard): blast-radius guard: 1 of 10 fleet nodes "
                       "drained by ebnccl (cause v-1 at 2026-12-06T11:00:00Z: rail 3 at 52% of "
                       "expected)"}));
  EXPECT_TRUE(decision.actions[0].node_has_job);
}

TEST(DecisionTest, TheSchedulersNodeOrderDoesNotMatter) {
  std::vector<SchedulerNode> nodes = Fleet(10);
  const std::vector<NodeVerdictRecord> verdicts = {Bad("n7", "v-1", 1), Bad("n2", "v-1", 1)};
  const Decision first = MustDecide(Input(nodes, verdicts));
  std::reverse(nodes.begin(), nodes.end());
  const Decision reversed = MustDecide(Input(nodes, verdicts));
  ASSERT_EQ(first.actions.size(), 2u);
  ASSERT_EQ(reversed.actions.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(AuditLine(first.actions[i]), AuditLine(reversed.actions[i]));
  }
}

TEST(DecisionTest, RefusesAPolicyOutOfRangeAndANodeListedTwice) {
  SchedulerPolicy policy;
  policy.max_drained_share = 1.5;
  EXPECT_EQ(Decide(Input(Fleet(), {}, policy), testing::kNow).status().code(),
            absl::StatusCode::kInvalidArgument);
  policy = SchedulerPolicy();
  policy.passes_to_resume = 0;
  EXPECT_EQ(Decide(Input(Fleet(), {}, policy), testing::kNow).status().code(),
            absl::StatusCode::kInvalidArgument);
  policy = SchedulerPolicy();
  policy.reason_prefix = "";
  EXPECT_EQ(Decide(Input(Fleet(), {}, policy), testing::kNow).status().code(),
            absl::StatusCode::kInvalidArgument);
  std::vector<SchedulerNode> twice = Fleet(2);
  twice.push_back(Node("n1"));
  EXPECT_EQ(Decide(Input(twice, {}), testing::kNow).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace eb::scheduler
