// The adaptive pair strategy, scenario by scenario (issue 11 part 3), on a
// scripted fleet: what each verdict is, with what evidence, in how many
// rounds and tests.
#include "coordinator/validation/validation.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/validation/fleet_fixture.h"
#include "tests/unit/validation/scripted_fleet.h"

namespace eb::validation {
namespace {

using test::H100Fleet;
using test::Outcome;
using test::RunToEnd;
using test::Script;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

Options PairsOnly() {
  Options options;
  options.suites = {Suite::kPreflight, Suite::kPairs};
  options.baselines = test::ShippedFigures();
  return options;
}

const NodeVerdict& V(const Outcome& o, const std::string& node) {
  const NodeVerdict* v = o.report.Find(node);
  EXPECT_NE(v, nullptr) << node;
  static const NodeVerdict none;
  return v == nullptr ? none : *v;
}

// Every node not named is healthy, and judged by a pair test.
void ExpectOthersHealthy(const Outcome& o, const std::set<std::string>& named) {
  for (const NodeVerdict& v : o.report.nodes) {
    if (named.count(v.node) != 0) continue;
    EXPECT_EQ(v.verdict, Verdict::kHealthy) << v.node << ": " << v.reason;
    EXPECT_TRUE(v.network_judged) << v.node;
  }
}

TEST(AdaptiveTest, HealthyFleetTakesOnePairRoundOfDisjointRingTests) {
  const Outcome o = RunToEnd(H100Fleet(8), PairsOnly(), Script{});
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.report.pair_rounds, 1);
  EXPECT_EQ(o.report.pair_tests, 4);
  ExpectOthersHealthy(o, {});
  EXPECT_FALSE(o.report.AnyBad());
  EXPECT_TRUE(o.report.findings.empty());
  // Each verdict names the rails its split pair tests measured: all 8.
  for (const NodeVerdict& v : o.report.nodes) {
    EXPECT_EQ(v.judged_rails, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7})) << v.node;
  }
  std::set<int64_t> ids;
  for (const Round& round : o.rounds) {
    std::set<std::string> busy;
    for (const PlannedTest& t : round.tests) {
      EXPECT_TRUE(ids.insert(t.id).second);
      EXPECT_EQ(t.kind, TestKind::kPair);
      EXPECT_EQ(t.collective, ebnccl::v1::COLLECTIVE_ALL_REDUCE);
      EXPECT_THAT(t.nccl_env,
                  ElementsAre(std::make_pair(std::string("NCCL_ALGO"), std::string("Ring"))));
      EXPECT_TRUE(t.split_rails);
      for (const std::string& n : t.nodes) EXPECT_TRUE(busy.insert(n).second) << n;
    }
  }
}

TEST(AdaptiveTest, OddFleetPairsTheLastNodeWithATrustedOneInRoundTwo) {
  const Outcome o = RunToEnd(H100Fleet(5), PairsOnly(), Script{});
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.report.pair_rounds, 2);
  EXPECT_EQ(o.report.pair_tests, 3);
  ASSERT_EQ(o.rounds[1].tests.size(), 1u);
  EXPECT_EQ(o.rounds[1].tests[0].nodes.front(), "node-04");
  ExpectOthersHealthy(o, {});
}

TEST(AdaptiveTest, BadNodeIsConfirmedInTwoRoundsAgainstADistinctTrustedPartner) {
  Script s;
  s.node["node-05"] = 0.5;
  const Outcome o = RunToEnd(H100Fleet(8), PairsOnly(), s);
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.report.pair_rounds, 2);
  EXPECT_EQ(o.report.pair_tests, 4 + 2);  // N/2 + 2k
  const NodeVerdict& v = V(o, "node-05");
  EXPECT_EQ(v.verdict, Verdict::kDegraded);
  EXPECT_EQ(v.confidence, Confidence::kConfirmed);
  EXPECT_TRUE(v.bad_rails.empty());  // every rail slow: the node, not a rail
  ASSERT_EQ(v.evidence.size(), 2u);
  EXPECT_EQ(v.evidence[0].partners, std::vector<std::string>{"node-01"});  // round 1 (1, 5)
  EXPECT_NE(v.evidence[1].partners, v.evidence[0].partners);               // a different one
  EXPECT_EQ(v.evidence[1].grade, Grade::kSlow);
  EXPECT_NEAR(v.evidence[1].measured_gbps, 8 * 46.5 * 0.5, 2);
  EXPECT_DOUBLE_EQ(v.evidence[1].threshold_gbps, 0.9 * 365);
  EXPECT_THAT(v.evidence[1].text, HasSubstr("min(expected 365, fleet median"));
  // Its first partner was cleared against someone else.
  EXPECT_EQ(V(o, "node-01").verdict, Verdict::kHealthy);
  EXPECT_EQ(V(o, "node-01").evidence.size(), 2u);
  ExpectOthersHealthy(o, {"node-05"});
  EXPECT_TRUE(o.report.AnyBad());
}

TEST(AdaptiveTest, TwoBadNodesPairedTogetherNeedAThirdRound) {
  Script s;
  s.node["node-00"] = 0.5;
  s.node["node-04"] = 0.6;  // round 1 pairs 0 with 4
  const Outcome o = RunToEnd(H100Fleet(8), PairsOnly(), s);
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.report.pair_rounds, 3);
  for (const std::string n : {"node-00", "node-04"}) {
    EXPECT_EQ(V(o, n).verdict, Verdict::kDegraded) << n;
    EXPECT_EQ(V(o, n).confidence, Confidence::kConfirmed) << n;
  }
  ExpectOthersHealthy(o, {"node-00", "node-04"});
}

TEST(AdaptiveTest, BadRailIsNamed) {
  Script s;
  s.rail[{"node-06", 3}] = 0.4;
  const Outcome o = RunToEnd(H100Fleet(8), PairsOnly(), s);
  ASSERT_EQ(o.error, "");
  const NodeVerdict& v = V(o, "node-06");
  EXPECT_EQ(v.verdict, Verdict::kDegraded);
  EXPECT_EQ(v.confidence, Confidence::kConfirmed);
  EXPECT_THAT(v.bad_rails, ElementsAre(3));
  ASSERT_EQ(o.report.rails.size(), 1u);
  EXPECT_EQ(o.report.rails[0].node, "node-06");
  EXPECT_EQ(o.report.rails[0].rail, 3);
  EXPECT_EQ(v.evidence[1].rail, 3);
  EXPECT_THAT(v.evidence[1].text, HasSubstr("slow rails: 3 ("));
  ExpectOthersHealthy(o, {"node-06"});
}

TEST(AdaptiveTest, BadPathIsReportedWhenBothNodesAreClearedAndConfirmedByARetest) {
  Script s;
  s.path[{"node-02", "node-06"}] = 0.5;  // round 1 pairs 2 with 6
  const Outcome o = RunToEnd(H100Fleet(8), PairsOnly(), s);
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.report.pair_rounds, 3);
  EXPECT_EQ(o.report.pair_tests, 4 + 2 + 1);
  ASSERT_EQ(o.report.paths.size(), 1u);
  const PathVerdict& p = o.report.paths[0];
  EXPECT_EQ(std::set<std::string>({p.a, p.b}), std::set<std::string>({"node-02", "node-06"}));
  EXPECT_EQ(p.confidence, Confidence::kConfirmed);
  EXPECT_EQ(p.evidence.size(), 2u);
  ExpectOthersHealthy(o, {});  // both ends are healthy nodes
  EXPECT_TRUE(o.report.AnyBad());
}

TEST(AdaptiveTest, ASlowPairThatIsFineOnRetestBlamesNobody) {
  Script s;
  s.path_once.insert({"node-01", "node-05"});
  const Outcome o = RunToEnd(H100Fleet(8), PairsOnly(), s);
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.report.pair_rounds, 3);
  EXPECT_TRUE(o.report.paths.empty());
  ExpectOthersHealthy(o, {});
  EXPECT_FALSE(o.report.AnyBad());
}

TEST(AdaptiveTest, TwoNodesWithOneBadSayWhyTheyCannotBeToldApart) {
  Script s;
  s.nic["node-01"] = 0.5;  // a NIC fault: the GPUs are fine
  Options options = PairsOnly();
  options.suites.push_back(Suite::kIntra);
  const Outcome o = RunToEnd(H100Fleet(2), options, s);
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.report.pair_rounds, 1);
  for (const std::string n : {"node-00", "node-01"}) {
    const NodeVerdict& v = V(o, n);
    // Issue 29: not healthy on intra alone; its network was tested, badly,
    // and nothing could tell which node (or the path) is at fault.
    EXPECT_EQ(v.verdict, Verdict::kUntestable) << n;
    EXPECT_FALSE(v.network_judged) << n;
    EXPECT_THAT(v.reason, HasSubstr("no node passed a pair test")) << n;
  }
  ASSERT_EQ(o.report.paths.size(), 1u);
  EXPECT_THAT(o.report.paths[0].reason, HasSubstr("not localized"));
  EXPECT_EQ(o.report.paths[0].confidence, Confidence::kSuspect);
  EXPECT_THAT(o.report.findings,
              Contains(testing::Field(&Finding::kind, FindingKind::kNoTrustedNode)));
  EXPECT_TRUE(o.report.AnyBad());
}

TEST(AdaptiveTest, ThreeNodesWithOneBadTryNewCombinationsAndConfirmIt) {
  Script s;
  s.node["node-00"] = 0.5;
  const Outcome o = RunToEnd(H100Fleet(3), PairsOnly(), s);
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.report.pair_rounds, 3);
  EXPECT_EQ(o.report.pair_tests, 3);
  EXPECT_EQ(V(o, "node-00").verdict, Verdict::kDegraded);
  EXPECT_EQ(V(o, "node-00").confidence, Confidence::kConfirmed);
  ExpectOthersHealthy(o, {"node-00"});
}

TEST(AdaptiveTest, EveryNodeBadIsAFleetFindingNotABlameOnAnyOne) {
  Script s;
  for (int i = 0; i < 8; ++i) s.node[absl::StrFormat("node-%02d", i)] = 0.5;
  const Outcome o = RunToEnd(H100Fleet(8), PairsOnly(), s);
  ASSERT_EQ(o.error, "");
  for (const NodeVerdict& v : o.report.nodes) EXPECT_EQ(v.verdict, Verdict::kHealthy) << v.node;
  EXPECT_THAT(
      o.report.findings,
      Contains(testing::AllOf(testing::Field(&Finding::kind, FindingKind::kFleetBelowExpected),
                              testing::Field(&Finding::bad, true))));
  EXPECT_TRUE(o.report.AnyBad());

  // Two nodes: no fleet median, both slow against the expected figure, no
  // node passes a pair test, and the report says so.
  Script two;
  two.node["node-00"] = 0.5;
  two.node["node-01"] = 0.5;
  const Outcome small = RunToEnd(H100Fleet(2), PairsOnly(), two);
  ASSERT_EQ(small.error, "");
  EXPECT_THAT(small.report.findings,
              Contains(testing::Field(&Finding::kind, FindingKind::kNoTrustedNode)));
  for (const NodeVerdict& v : small.report.nodes) {
    EXPECT_EQ(v.verdict, Verdict::kUntestable) << v.node;  // no intra to fall back on
    EXPECT_FALSE(v.network_judged);
  }
}

TEST(AdaptiveTest, ANodeLostMidValidationIsUntestableAndItsSuspectIsRetested) {
  Script s;
  s.node["node-04"] = 0.5;         // round 1: (0, 4) slow
  s.dies_in_round["node-02"] = 2;  // node-04's round-2 partner
  const Outcome o = RunToEnd(H100Fleet(8), PairsOnly(), s);
  ASSERT_EQ(o.error, "");
  const NodeVerdict& lost = V(o, "node-02");
  EXPECT_EQ(lost.verdict, Verdict::kUntestable);
  EXPECT_THAT(lost.reason, HasSubstr("lost during test"));
  EXPECT_THAT(lost.reason, HasSubstr("not a hardware verdict"));
  const NodeVerdict& bad = V(o, "node-04");
  EXPECT_EQ(bad.verdict, Verdict::kDegraded);
  EXPECT_EQ(bad.confidence, Confidence::kConfirmed);
  EXPECT_EQ(o.report.pair_rounds, 3);
  for (const Round& round : RoundsOf(o, TestKind::kPair)) {
    if (round.suite_round < 3) continue;
    for (const PlannedTest& t : round.tests)
      EXPECT_THAT(t.nodes, testing::Not(Contains("node-02")));
  }
  ExpectOthersHealthy(o, {"node-02", "node-04"});
}

TEST(AdaptiveTest, UnattributedInfraFailuresTwiceMakeANodeUntestable) {
  Script s;
  s.unnamed_infra["node-03"] = 2;
  const Outcome o = RunToEnd(H100Fleet(4), PairsOnly(), s);
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(V(o, "node-03").verdict, Verdict::kUntestable);
  EXPECT_THAT(V(o, "node-03").reason, HasSubstr("infrastructure"));
  for (const NodeVerdict& v : o.report.nodes) {
    EXPECT_NE(v.verdict, Verdict::kDegraded) << v.node;
    EXPECT_NE(v.verdict, Verdict::kFailed) << v.node;
  }
}

// Issue 29: a pair whose data path carried nothing. Both nodes are re-tested
// with partners that did well, the pair is re-tested, fails again: a failed
// path, confirmed; both nodes healthy.
TEST(AdaptiveTest, APathThatCarriesNothingIsAConfirmedFailedPath) {
  Script s;
  s.stuck_path.insert({"node-01", "node-04"});  // round 1 pairs node i with node i + 3
  const Outcome o = RunToEnd(H100Fleet(6), PairsOnly(), s);
  ASSERT_EQ(o.error, "");
  ASSERT_EQ(o.report.paths.size(), 1u);
  const PathVerdict& path = o.report.paths[0];
  EXPECT_EQ(path.a, "node-01");
  EXPECT_EQ(path.b, "node-04");
  EXPECT_EQ(path.verdict, Verdict::kFailed);
  EXPECT_EQ(path.confidence, Confidence::kConfirmed);
  ExpectOthersHealthy(o, {});
}

// A node with which nothing moves, whoever the partner: failed, confirmed by
// two partners that did well elsewhere; no path is blamed.
TEST(AdaptiveTest, ANodeWhoseEveryTestCarriesNothingIsFailed) {
  Script s;
  s.stuck_node.insert("node-02");
  const Outcome o = RunToEnd(H100Fleet(6), PairsOnly(), s);
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(V(o, "node-02").verdict, Verdict::kFailed);
  EXPECT_EQ(V(o, "node-02").confidence, Confidence::kConfirmed);
  EXPECT_THAT(o.report.paths, ::testing::IsEmpty());
  ExpectOthersHealthy(o, {"node-02"});
}

// Two nodes and nothing moves between them: no partner can tell either node
// from the path. Both untestable (never healthy), the path failed (suspect).
TEST(AdaptiveTest, TwoNodesThatCannotBeToldApartAreUntestableAndTheirPathFailed) {
  Script s;
  s.stuck_path.insert({"node-00", "node-01"});
  const Outcome o = RunToEnd(H100Fleet(2), PairsOnly(), s);
  ASSERT_EQ(o.error, "");
  for (const char* node : {"node-00", "node-01"}) {
    EXPECT_EQ(V(o, node).verdict, Verdict::kUntestable) << node;
    EXPECT_THAT(V(o, node).reason, HasSubstr("nothing could tell it from them")) << node;
  }
  ASSERT_EQ(o.report.paths.size(), 1u);
  EXPECT_EQ(o.report.paths[0].verdict, Verdict::kFailed);
  EXPECT_EQ(o.report.paths[0].confidence, Confidence::kSuspect);
}

// A test that could not run (naming nobody) leaves the validation unjudged:
// its nodes are re-tested with another partner, and a finding says the
// validation is not a pass, although every verdict is healthy.
TEST(AdaptiveTest, ATestThatCouldNotRunIsRetestedAndLeavesAnUnjudgedFinding) {
  Script s;
  s.unnamed_infra["node-02"] = 1;
  const Outcome o = RunToEnd(H100Fleet(6), PairsOnly(), s);
  ASSERT_EQ(o.error, "");
  ExpectOthersHealthy(o, {});
  int tests_with_node = 0;
  for (const Round& round : RoundsOf(o, TestKind::kPair)) {
    for (const PlannedTest& t : round.tests) {
      tests_with_node += static_cast<int>(std::count(t.nodes.begin(), t.nodes.end(), "node-02"));
    }
  }
  EXPECT_EQ(tests_with_node, 2);
  EXPECT_THAT(o.report.findings,
              Contains(::testing::Field(&Finding::kind, FindingKind::kTestsUnjudged)));
}

TEST(AdaptiveTest, WrongDataIsAFailureConfirmedByARetest) {
  Script s;
  s.wrong_data.insert("node-02");
  const Outcome o = RunToEnd(H100Fleet(6), PairsOnly(), s);
  ASSERT_EQ(o.error, "");
  const NodeVerdict& v = V(o, "node-02");
  EXPECT_EQ(v.verdict, Verdict::kFailed);
  EXPECT_EQ(v.confidence, Confidence::kConfirmed);
  EXPECT_THAT(v.evidence[0].text, HasSubstr("wrong data"));
  ExpectOthersHealthy(o, {"node-02"});
}

TEST(AllPairsTest, RoundRobinTakesNMinusOneRoundsAndFindsTheBadNode) {
  Options options = PairsOnly();
  options.strategy = Strategy::kAllPairs;
  Script s;
  s.node["node-02"] = 0.5;
  const Outcome o = RunToEnd(H100Fleet(6), options, s);
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.report.pair_rounds, 5);
  EXPECT_EQ(o.report.pair_tests, 15);
  EXPECT_EQ(V(o, "node-02").verdict, Verdict::kDegraded);
  EXPECT_EQ(V(o, "node-02").confidence, Confidence::kConfirmed);
  ExpectOthersHealthy(o, {"node-02"});
}

TEST(AdaptiveTest, TheRoundLimitStopsAndSaysSo) {
  Options options = PairsOnly();
  options.max_pair_rounds = 1;
  Script s;
  s.node["node-03"] = 0.5;
  const Outcome o = RunToEnd(H100Fleet(8), options, s);
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.report.pair_rounds, 1);
  EXPECT_THAT(o.report.findings,
              Contains(testing::Field(&Finding::kind, FindingKind::kRoundLimit)));
  EXPECT_NE(V(o, "node-03").verdict, Verdict::kHealthy);
  EXPECT_NE(V(o, "node-07").verdict, Verdict::kDegraded);  // its partner is not blamed
}

TEST(StopTest, NodesNoTestReachedAreSaidNotReachedWhenTheRunnerStopsEarly) {
  absl::StatusOr<std::unique_ptr<Validation>> v = Validation::Create(H100Fleet(4), PairsOnly());
  ASSERT_TRUE(v.ok()) << v.status();
  absl::StatusOr<Round> first = (*v)->NextRound();
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_FALSE(first->done);
  (*v)->Stop("cancelled: by alice");
  for (const NodeVerdict& node : (*v)->Report().nodes) {
    EXPECT_EQ(node.verdict, Verdict::kUntestable) << node.node;
    EXPECT_THAT(node.reason, HasSubstr("not reached: the validation stopped (cancelled: by alice)"))
        << node.node;
  }
}

}  // namespace
}  // namespace eb::validation
