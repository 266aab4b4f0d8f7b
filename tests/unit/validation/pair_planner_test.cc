// Pair schedules: round 1's matching, the round-robin tournament, and the
// partners of later adaptive rounds.
#include "coordinator/validation/pair_planner.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::validation {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

std::vector<int> Range(int n) {
  std::vector<int> v;
  v.reserve(n);
  for (int i = 0; i < n; ++i) v.push_back(i);
  return v;
}

TEST(FirstRoundMatchingTest, PairsEveryNodeOnceAndLeavesTheOddOneForRoundTwo) {
  const std::vector<std::string> no_leaves(7, "");
  EXPECT_THAT(FirstRoundMatching(Range(6), no_leaves),
              ElementsAre(Pair(0, 3), Pair(1, 4), Pair(2, 5)));
  EXPECT_THAT(FirstRoundMatching(Range(7), no_leaves),
              ElementsAre(Pair(0, 3), Pair(1, 4), Pair(2, 5)));  // node 6 waits
  EXPECT_THAT(FirstRoundMatching(Range(2), no_leaves), ElementsAre(Pair(0, 1)));
  EXPECT_TRUE(FirstRoundMatching(Range(1), no_leaves).empty());
}

TEST(FirstRoundMatchingTest, PairsCrossLeavesWhenLeavesAreKnown) {
  // Interleaved leaves in input order; every pair must cross.
  const std::vector<std::string> leaves = {"a", "b", "a", "b", "a", "b", "a", "b"};
  for (const NodePair& p : FirstRoundMatching(Range(8), leaves)) {
    EXPECT_NE(leaves[p.first], leaves[p.second]) << p.first << "-" << p.second;
  }
}

TEST(FirstRoundWithLeafReferenceTest, MostNodesPairOnTheirLeafAndAShareCrosses) {
  // The netns e2e's fleet: 2 leaves of 3; one node of each crosses.
  const std::vector<std::string> six = {"a", "a", "a", "b", "b", "b"};
  EXPECT_THAT(FirstRoundWithLeafReference(Range(6), six),
              ElementsAre(Pair(1, 2), Pair(4, 5), Pair(0, 3)));
  // 3 leaves of 16: 6 cross from each (5, and one more so 10 pair at home).
  std::vector<std::string> leaves;
  for (const char* leaf : {"a", "b", "c"}) leaves.insert(leaves.end(), 16, leaf);
  const std::vector<NodePair> pairs = FirstRoundWithLeafReference(Range(48), leaves);
  ASSERT_EQ(pairs.size(), 24u);
  std::set<int> seen;
  int crossing = 0;
  for (const NodePair& p : pairs) {
    EXPECT_TRUE(seen.insert(p.first).second);
    EXPECT_TRUE(seen.insert(p.second).second);
    crossing += leaves[p.first] != leaves[p.second];
  }
  EXPECT_EQ(crossing, 9);
  // One leaf, or leaves unknown: FirstRoundMatching.
  EXPECT_EQ(FirstRoundWithLeafReference(Range(6), std::vector<std::string>(6, "a")),
            FirstRoundMatching(Range(6), std::vector<std::string>(6, "a")));
  EXPECT_EQ(FirstRoundWithLeafReference(Range(4), {"a", "", "b", "b"}),
            FirstRoundMatching(Range(4), {"a", "", "b", "b"}));
}

TEST(RoundRobinTest, EveryPairMeetsExactlyOnceInDisjointRounds) {
  for (int n : {2, 3, 4, 7, 16}) {
    SCOPED_TRACE(n);
    const std::vector<std::vector<NodePair>> rounds = RoundRobin(Range(n));
    EXPECT_EQ(static_cast<int>(rounds.size()), n % 2 == 0 ? n - 1 : n);
    std::map<NodePair, int> met;
    for (const std::vector<NodePair>& round : rounds) {
      std::set<int> busy;
      for (const NodePair& p : round) {
        EXPECT_TRUE(busy.insert(p.first).second);
        EXPECT_TRUE(busy.insert(p.second).second);
        ++met[{std::min(p.first, p.second), std::max(p.first, p.second)}];
      }
    }
    EXPECT_EQ(static_cast<int>(met.size()), n * (n - 1) / 2);
    for (const auto& [pair, count] : met) EXPECT_EQ(count, 1);
  }
}

PairNode PlannerNode(PairStatus status, bool reliable, bool wants) {
  PairNode p;
  p.status = status;
  p.reliable = reliable;
  p.wants_test = wants;
  return p;
}

TEST(PlanAdaptiveRoundTest, EverySuspectGetsADistinctTrustedPartnerItHasNotMet) {
  PairAssessment a;
  a.any_capable = true;
  a.nodes = {PlannerNode(PairStatus::kSuspect, false, true),
             PlannerNode(PairStatus::kSuspect, false, true),
             PlannerNode(PairStatus::kHealthy, true, false),
             PlannerNode(PairStatus::kHealthy, true, false),
             PlannerNode(PairStatus::kHealthy, true, false),
             PlannerNode(PairStatus::kUntested, false, true)};
  const std::set<NodePair> met = {{0, 1}, {0, 2}, {2, 3}, {1, 4}};
  const std::vector<std::string> names = {"a", "b", "c", "d", "e", "f"};
  std::vector<int> uses(6, 0);
  const AdaptivePlan plan = PlanAdaptiveRound(a, met, names, uses);
  // a has met c: it gets d; b has met e: it gets c; f gets e.
  ASSERT_EQ(plan.pairs.size(), 3u);
  EXPECT_EQ(plan.pairs[0].nodes, NodePair(0, 3));
  EXPECT_EQ(plan.pairs[1].nodes, NodePair(1, 2));
  EXPECT_EQ(plan.pairs[2].nodes, NodePair(5, 4));
  EXPECT_FALSE(plan.without_trusted);
  EXPECT_EQ(uses, (std::vector<int>{0, 0, 1, 1, 1, 0}));
}

TEST(PlanAdaptiveRoundTest, PathCandidatesAreRetestedTogetherFirst) {
  PairAssessment a;
  a.any_capable = true;
  a.nodes = {PlannerNode(PairStatus::kHealthy, false, false),
             PlannerNode(PairStatus::kHealthy, false, false),
             PlannerNode(PairStatus::kHealthy, true, false)};
  PathCandidate c;
  c.a = 0;
  c.b = 1;
  c.state = PathState::kNeedsRetest;
  a.paths.push_back(c);
  std::vector<int> uses(3, 0);
  const AdaptivePlan plan = PlanAdaptiveRound(a, {{0, 1}}, {"a", "b", "c"}, uses);
  ASSERT_EQ(plan.pairs.size(), 1u);
  EXPECT_EQ(plan.pairs[0].nodes, NodePair(0, 1));
}

TEST(PlanAdaptiveRoundTest, WithoutATrustedNodeNewCombinationsAreTried) {
  PairAssessment a;  // N = 3 after a slow first pair: nobody did well yet
  a.nodes = {PlannerNode(PairStatus::kUnresolved, false, true),
             PlannerNode(PairStatus::kUnresolved, false, true),
             PlannerNode(PairStatus::kUntested, false, true)};
  std::vector<int> uses(3, 0);
  AdaptivePlan plan = PlanAdaptiveRound(a, {{0, 1}}, {"a", "b", "c"}, uses);
  EXPECT_TRUE(plan.without_trusted);
  ASSERT_EQ(plan.pairs.size(), 1u);
  EXPECT_EQ(plan.pairs[0].nodes, NodePair(0, 2));
  // Every combination tried: nothing left, and it says so.
  plan = PlanAdaptiveRound(a, {{0, 1}, {0, 2}, {1, 2}}, {"a", "b", "c"}, uses);
  EXPECT_TRUE(plan.pairs.empty());
  EXPECT_TRUE(plan.needs_unmet);
}

TEST(PlanAdaptiveRoundTest, ANodeThatMetEveryTrustedNodeIsReportedUnmet) {
  PairAssessment a;
  a.any_capable = true;
  a.nodes = {PlannerNode(PairStatus::kSuspect, false, true),
             PlannerNode(PairStatus::kHealthy, true, false)};
  std::vector<int> uses(2, 0);
  const AdaptivePlan plan = PlanAdaptiveRound(a, {{0, 1}}, {"a", "b"}, uses);
  EXPECT_TRUE(plan.pairs.empty());
  EXPECT_TRUE(plan.needs_unmet);
}

}  // namespace
}  // namespace eb::validation
