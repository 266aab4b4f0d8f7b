#include "coordinator/scheduler/sentinel_planner.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/scheduler/scheduler_fixture.h"

namespace eb::scheduler {
namespace {

using ::testing::HasSubstr;
using testing::HoursAgo;
using testing::kNow;
using testing::Node;

constexpr int kSentinelRails = 8;

// An idle node whose every rail was judged `hours_ago` (negative: never),
// last found `verdict`.
SentinelNode Probed(std::string name, double hours_ago,
                    std::optional<validation::Verdict> verdict = validation::Verdict::kHealthy,
                    NodeState state = NodeState::kIdle) {
  SentinelNode node;
  node.node = Node(std::move(name), state);
  node.rail_evidence.assign(kSentinelRails,
                            hours_ago < 0 ? std::nullopt : std::optional(HoursAgo(hours_ago)));
  node.last_verdict = hours_ago < 0 ? std::nullopt : verdict;
  return node;
}

SentinelPolicy AnyShare() {
  SentinelPolicy policy;
  policy.max_idle_share = 1.0;
  return policy;
}

std::string Pairs(const SentinelPlan& plan) {
  std::string text;
  for (const SentinelProbe& probe : plan.probes) {
    text += probe.node + "+" + probe.partner + (probe.partner_known_good ? "" : "?") + " ";
  }
  return text;
}

std::string Waits(const SentinelPlan& plan) {
  std::string text;
  for (const SentinelWait& wait : plan.waiting) text += wait.node + ": " + wait.why + "; ";
  return text;
}

TEST(SentinelPlannerTest, OldestEvidenceFirstEachWithTheOldestKnownGoodPartner) {
  const std::vector<SentinelNode> nodes = {
      Probed("a", 21), Probed("b", 23), Probed("c", -1),  // never judged: first
      Probed("d", 2),  Probed("e", 5),  Probed("f", 22),
  };
  const absl::StatusOr<SentinelPlan> plan = PlanSentinel(nodes, AnyShare(), kNow);
  ASSERT_TRUE(plan.ok()) << plan.status();
  // c pairs with b (the oldest known good, due itself), then f with a (b
  // is taken): one probe refreshes two due nodes. d and e are not due.
  EXPECT_EQ(Pairs(*plan), "c+b f+a ");
  EXPECT_EQ(Waits(*plan), "");
  ASSERT_FALSE(plan->probes[0].oldest_evidence.has_value());
  // Next look: when e falls due (5 h ago + 20 h).
  EXPECT_EQ(plan->next_look, kNow + absl::Hours(15));
}

TEST(SentinelPlannerTest, NeverANodeThatHoldsAJobNeitherProbedNorPartner) {
  const std::vector<SentinelNode> nodes = {
      Probed("old-busy", 40, validation::Verdict::kHealthy, NodeState::kAllocated),
      Probed("good-busy", 1, validation::Verdict::kHealthy, NodeState::kAllocated),
      Probed("drained", 40, validation::Verdict::kFailed, NodeState::kDrained),
      Probed("due", 30),
      Probed("good", 3),
  };
  const absl::StatusOr<SentinelPlan> plan = PlanSentinel(nodes, AnyShare(), kNow);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Pairs(*plan), "due+good ");
  EXPECT_EQ(Waits(*plan), "drained: drained; old-busy: holds a job; ");
  EXPECT_EQ(plan->next_look, kNow + absl::Minutes(1));  // old-busy waits: look again soon
}

TEST(SentinelPlannerTest, NeverMoreThanTheShareOfIdleNodesCountingProbesInFlight) {
  std::vector<SentinelNode> nodes;
  nodes.reserve(20);
  for (int i = 0; i < 20; ++i) nodes.push_back(Probed("n" + std::to_string(10 + i), 21));
  SentinelPolicy policy;
  policy.max_idle_share = 0.25;  // 20 idle: 5 nodes, so 2 pairs
  absl::StatusOr<SentinelPlan> plan = PlanSentinel(nodes, policy, kNow);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->probes.size(), 2u);
  EXPECT_EQ(plan->waiting.size(), 16u);
  EXPECT_EQ(plan->waiting.front().why, "over the share of idle nodes");

  // Two of them held by a probe in flight (still idle nodes for the share):
  // room for 3 more, so one pair.
  for (int i = 0; i < 2; ++i) {
    nodes[i].node.state = NodeState::kAllocated;
    nodes[i].node.held_by_us = true;
  }
  plan = PlanSentinel(nodes, policy, kNow);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Pairs(*plan), "n12+n13 ");
  for (const SentinelWait& wait : plan->waiting) EXPECT_NE(wait.node, "n10");  // in flight

  policy.max_idle_share = 0;  // no borrowing at all
  plan = PlanSentinel(nodes, policy, kNow);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->probes.empty());
}

TEST(SentinelPlannerTest, PartnersAreKnownGoodHealthyAndWithinThePeriod) {
  std::vector<SentinelNode> nodes = {
      Probed("stale-good", 25),  // healthy, but older than the period: due, no partner
      Probed("slow", 1, validation::Verdict::kDegraded),
      Probed("untestable", 1, validation::Verdict::kUntestable),
  };
  absl::StatusOr<SentinelPlan> plan = PlanSentinel(nodes, AnyShare(), kNow);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Pairs(*plan), "");
  EXPECT_EQ(Waits(*plan), "stale-good: no idle partner; ");

  nodes.push_back(Probed("good", 10));
  plan = PlanSentinel(nodes, AnyShare(), kNow);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Pairs(*plan), "stale-good+good ");
  EXPECT_EQ(Waits(*plan), "");
}

TEST(SentinelPlannerTest, ANodeWithNoGoodPartnerPairsWithAnotherDueNodeOrWaits) {
  const std::vector<SentinelNode> nodes = {
      Probed("x", -1), Probed("y", -1), Probed("z", -1),
      Probed("busy-good", 1, validation::Verdict::kHealthy, NodeState::kAllocated)};
  SentinelPolicy policy = AnyShare();
  absl::StatusOr<SentinelPlan> plan = PlanSentinel(nodes, policy, kNow);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Pairs(*plan), "x+y? ");  // a fleet never judged still starts
  EXPECT_EQ(Waits(*plan), "z: no idle partner; ");

  policy.pair_unknown_nodes = false;
  plan = PlanSentinel(nodes, policy, kNow);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Pairs(*plan), "");
  EXPECT_EQ(Waits(*plan),
            "x: no known-good partner idle; y: no known-good partner idle; z: no known-good "
            "partner idle; ");
}

TEST(SentinelPlannerTest, OneStaleRailMakesTheNodeDue) {
  std::vector<SentinelNode> nodes = {Probed("a", 1), Probed("b", 2)};
  nodes[0].rail_evidence[5] = HoursAgo(21);  // a validation limited to other rails
  absl::StatusOr<SentinelPlan> plan = PlanSentinel(nodes, AnyShare(), kNow);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Pairs(*plan), "a+b ");
  EXPECT_EQ(plan->probes[0].oldest_evidence, HoursAgo(21));

  nodes[0].rail_evidence[5] = std::nullopt;  // never judged: due, and no partner itself
  plan = PlanSentinel(nodes, AnyShare(), kNow);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Pairs(*plan), "a+b ");
  EXPECT_FALSE(plan->probes[0].oldest_evidence.has_value());
}

TEST(SentinelPlannerTest, TheSameInputInAnyOrderGivesTheSamePlan) {
  std::vector<SentinelNode> nodes;
  nodes.reserve(30);
  for (int i = 0; i < 30; ++i) {
    nodes.push_back(Probed("m" + std::to_string(i), (i * 7) % 26, validation::Verdict::kHealthy,
                           i % 4 == 0 ? NodeState::kAllocated : NodeState::kIdle));
  }
  SentinelPolicy policy;
  policy.max_idle_share = 0.4;
  const absl::StatusOr<SentinelPlan> first = PlanSentinel(nodes, policy, kNow);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_FALSE(first->probes.empty());
  std::reverse(nodes.begin(), nodes.end());
  std::rotate(nodes.begin(), nodes.begin() + 11, nodes.end());
  const absl::StatusOr<SentinelPlan> second = PlanSentinel(nodes, policy, kNow);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(Pairs(*first), Pairs(*second));
  EXPECT_EQ(Waits(*first), Waits(*second));
  EXPECT_EQ(first->next_look, second->next_look);
}

// A fleet idle half of every hour (nodes 0-4 in the first half, 5-9 in
// the second), probes that pass and last probe_duration, the planner
// called whenever it asks (at most every minute): no node's evidence is
// ever older than the period, from the first probe on.
TEST(SentinelPlannerTest, EveryNodeIsCoveredWithinThePeriodWhenIdleTimeAllows) {
  std::vector<SentinelNode> nodes;
  nodes.reserve(10);
  for (int i = 0; i < 10; ++i) nodes.push_back(Probed("s" + std::to_string(i), -1));
  SentinelPolicy policy;
  policy.max_idle_share = 0.5;
  std::map<std::string, absl::Time> in_flight_until;
  absl::Time now = kNow;
  const absl::Time end = kNow + absl::Hours(72);
  int probes = 0;
  while (now < end) {
    const int minute_of_hour = static_cast<int>(absl::ToInt64Minutes(now - kNow) % 60);
    for (int i = 0; i < 10; ++i) {
      SentinelNode& node = nodes[i];
      auto flight = in_flight_until.find(node.node.name);
      if (flight != in_flight_until.end() && flight->second <= now) {
        node.rail_evidence.assign(kSentinelRails, flight->second);
        node.last_verdict = validation::Verdict::kHealthy;
        in_flight_until.erase(flight);
      }
      const bool tenant_free = (i < 5) == (minute_of_hour < 30);
      node.node.held_by_us = in_flight_until.contains(node.node.name);
      node.node.state =
          node.node.held_by_us || !tenant_free ? NodeState::kAllocated : NodeState::kIdle;
      if (now >= kNow + policy.period) {
        ASSERT_TRUE(OldestEvidence(node).has_value()) << node.node.name;
        EXPECT_LT(now - *OldestEvidence(node), policy.period) << node.node.name;
      }
    }
    const absl::StatusOr<SentinelPlan> plan = PlanSentinel(nodes, policy, now);
    ASSERT_TRUE(plan.ok()) << plan.status();
    for (const SentinelProbe& probe : plan->probes) {
      in_flight_until[probe.node] = in_flight_until[probe.partner] = now + policy.probe_duration;
      ++probes;
    }
    ASSERT_GT(plan->next_look, now - absl::Seconds(1));
    now = std::min(std::max(plan->next_look, now + absl::Seconds(1)), now + absl::Minutes(1));
  }
  // About one probe per pair of nodes per 20 h (10 nodes over 72 h: 5 at
  // the start, then 5 every 20 h), plus the odd node of each half-hour
  // shift, which pairs with a known-good node before that one is due.
  EXPECT_GE(probes, 15);
  EXPECT_LE(probes, 30);
}

TEST(SentinelPlannerTest, RefusesAPolicyOutOfRangeNamingTheFieldAndDuplicates) {
  const std::vector<SentinelNode> nodes = {Probed("a", 1)};
  auto refused = [&](SentinelPolicy policy, const std::string& field) {
    const absl::StatusOr<SentinelPlan> plan = PlanSentinel(nodes, policy, kNow);
    ASSERT_FALSE(plan.ok()) << field;
    EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(plan.status().message(), HasSubstr(field));
  };
  SentinelPolicy policy;
  policy.period = absl::ZeroDuration();
  refused(policy, "period");
  policy = SentinelPolicy();
  policy.refresh_after = absl::Hours(25);
  refused(policy, "refresh_after");
  policy = SentinelPolicy();
  policy.max_idle_share = 1.5;
  refused(policy, "max_idle_share");
  policy = SentinelPolicy();
  policy.probe_duration = -absl::Seconds(1);
  refused(policy, "probe_duration");
  policy = SentinelPolicy();
  policy.retry_after = absl::ZeroDuration();
  refused(policy, "retry_after");

  const absl::StatusOr<SentinelPlan> twice =
      PlanSentinel({Probed("a", 1), Probed("a", 2)}, SentinelPolicy(), kNow);
  EXPECT_THAT(twice.status().message(), HasSubstr("listed twice"));
  SentinelNode railless = Probed("b", 1);
  railless.rail_evidence.clear();
  EXPECT_THAT(PlanSentinel({railless}, SentinelPolicy(), kNow).status().message(),
              HasSubstr("no rails"));
}

}  // namespace
}  // namespace eb::scheduler
