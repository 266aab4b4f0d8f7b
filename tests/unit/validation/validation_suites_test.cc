// The suites around the pairs (preflight, intra, fleet), the inputs the
// runner gives, and the contract of NextRound/Record.
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/validation/report_proto.h"
#include "coordinator/validation/validation.h"
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
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::Not;

Options AllSuites() {
  Options options;
  options.baselines = test::ShippedFigures();
  return options;
}

bool Tested(const Outcome& o, const std::string& node) {
  for (const Round& r : o.rounds) {
    for (const PlannedTest& t : r.tests) {
      for (const std::string& n : t.nodes) {
        if (n == node) return true;
      }
    }
  }
  return false;
}

TEST(SuitesTest, IntraRunsEveryNodeAtOnceBeforeThePairs) {
  const Outcome o = RunToEnd(H100Fleet(6), AllSuites(), Script{});
  ASSERT_EQ(o.error, "");
  ASSERT_GE(o.rounds.size(), 2u);
  EXPECT_EQ(o.rounds[0].kind, TestKind::kIntra);
  EXPECT_EQ(o.rounds[0].tests.size(), 6u);
  EXPECT_TRUE(o.rounds[0].tests[0].nccl_env.empty());
  EXPECT_EQ(o.rounds[1].kind, TestKind::kPair);
  EXPECT_EQ(o.report.intra_rounds, 1);
  EXPECT_EQ(o.report.pair_rounds, 1);
  for (const NodeVerdict& v : o.report.nodes) {
    EXPECT_EQ(v.verdict, Verdict::kHealthy);
    EXPECT_EQ(v.reason, "intra and pairs did well");
  }
}

TEST(SuitesTest, IntraSlowTwiceIsConfirmedAndSitsThePairsOut) {
  Script s;
  s.intra["node-01"] = 0.5;
  const Outcome o = RunToEnd(H100Fleet(6), AllSuites(), s);
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.report.intra_rounds, 2);
  EXPECT_EQ(o.rounds[1].tests.size(), 1u);  // only the slow node is re-tested
  const NodeVerdict* v = o.report.Find("node-01");
  EXPECT_EQ(v->verdict, Verdict::kDegraded);
  EXPECT_EQ(v->confidence, Confidence::kConfirmed);
  EXPECT_THAT(v->reason, HasSubstr("intra: slow in 2 of 2 tests; not pair-tested"));
  for (const Round& r : test::RoundsOf(o, TestKind::kPair)) {
    for (const PlannedTest& t : r.tests) EXPECT_THAT(t.nodes, Not(Contains("node-01")));
  }
}

TEST(SuitesTest, OneBorderlineIntraResultNotReproducedIsNoise) {
  Script s;
  s.intra_once["node-03"] = 0.85;
  const Outcome o = RunToEnd(H100Fleet(4), AllSuites(), s);
  ASSERT_EQ(o.error, "");
  const NodeVerdict* v = o.report.Find("node-03");
  EXPECT_EQ(v->verdict, Verdict::kHealthy);
  EXPECT_THAT(v->reason, HasSubstr("one borderline intra result not reproduced"));
}

TEST(SuitesTest, AClearlySlowIntraResultThenAFineOneIsIntermittent) {
  Script s;
  s.intra_once["node-03"] = 0.5;
  const Outcome o = RunToEnd(H100Fleet(4), AllSuites(), s);
  ASSERT_EQ(o.error, "");
  const NodeVerdict* v = o.report.Find("node-03");
  EXPECT_EQ(v->verdict, Verdict::kDegraded);
  EXPECT_EQ(v->confidence, Confidence::kSuspect);
  EXPECT_THAT(v->reason, HasSubstr("intermittent"));
}

TEST(SuitesTest, UnfitAndUnreachableNodesAreNeverTested) {
  std::vector<Node> nodes = H100Fleet(6);
  nodes[2].inventory.set_nccl_version("2.27.3");
  nodes[4].reachable = false;
  const Outcome o = RunToEnd(nodes, AllSuites(), Script{});
  ASSERT_EQ(o.error, "");
  EXPECT_FALSE(Tested(o, "node-02"));
  EXPECT_FALSE(Tested(o, "node-04"));
  const NodeVerdict* unfit = o.report.Find("node-02");
  EXPECT_EQ(unfit->verdict, Verdict::kUnfit);
  EXPECT_THAT(unfit->reason, HasSubstr("NCCL version: 2.27.3 here, 2.28.9"));
  const NodeVerdict* lost = o.report.Find("node-04");
  EXPECT_EQ(lost->verdict, Verdict::kUntestable);
  EXPECT_THAT(lost->reason, HasSubstr("not reachable"));
  EXPECT_FALSE(o.report.AnyBad());  // unfit and untestable are not exit 7
}

TEST(SuitesTest, PreflightOnlyJudgesTheInventory) {
  Options options = AllSuites();
  options.suites = {Suite::kPreflight};
  const Outcome o = RunToEnd(H100Fleet(3), options, Script{});
  ASSERT_EQ(o.error, "");
  EXPECT_TRUE(o.rounds.empty());
  for (const NodeVerdict& v : o.report.nodes) {
    EXPECT_EQ(v.verdict, Verdict::kHealthy);
    EXPECT_THAT(v.reason, HasSubstr("preflight only"));
  }
}

// Issue 29, item 3: without -b/-e every test is graded on its plateau. The
// intra round sweeps up to the intra baseline's size; a pair runs its
// baseline's size alone; each moves at least 1 GiB per rail.
TEST(SuitesTest, TestsAreGradedAtTheSizeTheirBaselineHoldsAt) {
  const Outcome o = RunToEnd(H100Fleet(4), AllSuites(), Script{});
  ASSERT_EQ(o.error, "");
  constexpr int64_t k8G = int64_t{8} << 30;
  const PlannedTest& intra = o.rounds[0].tests[0];
  EXPECT_EQ(intra.min_bytes, int64_t{1} << 20);
  EXPECT_EQ(intra.max_bytes, k8G);
  EXPECT_EQ(intra.iterations, 20);
  const PlannedTest& pair = o.rounds[1].tests[0];
  EXPECT_EQ(pair.min_bytes, k8G);
  EXPECT_EQ(pair.max_bytes, k8G);
  for (const NodeVerdict& v : o.report.nodes) EXPECT_EQ(v.verdict, Verdict::kHealthy);
}

// Hardware without a figure: the pairs run at the plateau the intra round
// found (the largest over the nodes), with calls for 1 GiB per rail.
TEST(SuitesTest, WithoutABaselinePairsRunAtThePlateauTheIntraRoundFound) {
  Options options = AllSuites();
  options.baselines = {};
  absl::StatusOr<std::unique_ptr<Validation>> v = Validation::Create(H100Fleet(4), options);
  ASSERT_TRUE(v.ok()) << v.status();
  absl::StatusOr<Round> intra = (*v)->NextRound();
  ASSERT_TRUE(intra.ok());
  ASSERT_EQ(intra->kind, TestKind::kIntra);
  EXPECT_EQ(intra->tests[0].max_bytes, int64_t{1} << 30);  // the policy's top: no figure
  int64_t plateau = int64_t{16} << 20;
  for (const PlannedTest& t : intra->tests) {
    TestResult r = TestResult::Completed(t.id, 370);
    r.graded_bytes = t.max_bytes;
    r.plateau_bytes = plateau;
    plateau *= 2;  // 16M, 32M, 64M, 128M: the largest wins
    ASSERT_TRUE((*v)->Record(r).ok());
  }
  absl::StatusOr<Round> pairs = (*v)->NextRound();
  ASSERT_TRUE(pairs.ok());
  ASSERT_EQ(pairs->kind, TestKind::kPair);
  for (const PlannedTest& t : pairs->tests) {
    EXPECT_EQ(t.min_bytes, int64_t{128} << 20);
    EXPECT_EQ(t.max_bytes, int64_t{128} << 20);
    EXPECT_EQ(t.iterations, 20);
  }
}

// The user's -e below the figures' size: the figures are not compared
// (below the plateau a healthy node is slower), and the verdict says so.
TEST(SuitesTest, AFigureIsNotComparedBelowItsSizeAndTheVerdictSaysSo) {
  Options options = AllSuites();
  options.sizes.user_sweep = true;
  options.sizes.user_max_bytes = int64_t{32} << 20;
  Script s;
  s.graded_bytes = int64_t{32} << 20;
  s.nic["node-03"] = 0.5;
  const Outcome o = RunToEnd(H100Fleet(8), options, s);
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.rounds[1].tests[0].max_bytes, 0);    // the user's sweep
  EXPECT_EQ(o.rounds[1].tests[0].iterations, 32);  // 32 x 32M = 1G per rail
  const NodeVerdict* v = o.report.Find("node-03");
  EXPECT_EQ(v->verdict, Verdict::kDegraded);
  EXPECT_THAT(v->evidence.back().text,
              HasSubstr("8 x 400G pair at all_reduce 32M (its baseline holds at all_reduce 8G)"));
  EXPECT_THAT(o.report.findings, Contains(Field(&Finding::kind, FindingKind::kMedianOnly)));
}

// --soak: after the pairs, repeats of pair tests among the healthy nodes
// with rotating partners, while the runner has time, then the fleet suite.
TEST(SuitesTest, SoakRepeatsPairTestsWithRotatingPartnersWhileTimeRemains) {
  Options options = AllSuites();
  options.soak = true;
  Script s;
  s.soak_repeats = 3;
  const Outcome o = RunToEnd(H100Fleet(6), options, s);
  ASSERT_EQ(o.error, "");
  std::vector<Round> soak;
  for (const Round& r : o.rounds) {
    if (r.soak) soak.push_back(r);
  }
  ASSERT_EQ(soak.size(), 3u);
  std::set<std::set<std::string>> pairs;
  for (size_t k = 0; k < soak.size(); ++k) {
    EXPECT_EQ(soak[k].kind, TestKind::kPair);
    EXPECT_EQ(soak[k].suite_round, static_cast<int>(k) + 1);
    EXPECT_EQ(soak[k].tests.size(), 3u);  // every healthy node, once
    for (const PlannedTest& t : soak[k].tests) {
      EXPECT_EQ(t.purpose, "soak repeat " + std::to_string(k + 1));
      EXPECT_EQ(t.max_bytes, int64_t{8} << 30);  // the graded size
      pairs.insert({t.nodes[0], t.nodes[1]});
    }
  }
  EXPECT_EQ(pairs.size(), 9u);  // partners rotate: no pair twice in 3 repeats
  for (const NodeVerdict& v : o.report.nodes) EXPECT_EQ(v.verdict, Verdict::kHealthy);
  // Without soak, no repeat.
  const Outcome plain = RunToEnd(H100Fleet(6), AllSuites(), s);
  for (const Round& r : plain.rounds) EXPECT_FALSE(r.soak);
}

// A node that turns slow in the second repeat of the soak (fine before) is
// judged like any slow node: re-tested between repeats, then named.
TEST(SuitesTest, ANodeThatTurnsSlowDuringTheSoakIsFoundAndNamed) {
  Options options = AllSuites();
  options.soak = true;
  Script s;
  s.soak_repeats = 4;
  s.slow_from_soak_repeat["node-02"] = 2;
  const Outcome o = RunToEnd(H100Fleet(6), options, s);
  ASSERT_EQ(o.error, "");
  const NodeVerdict* v = o.report.Find("node-02");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->verdict, Verdict::kDegraded) << v->reason;
  for (const NodeVerdict& other : o.report.nodes) {
    if (other.node != "node-02") {
      EXPECT_EQ(other.verdict, Verdict::kHealthy) << other.node;
    }
  }
}

TEST(SuitesTest, WithoutAnExpectedFigureTheVerdictRestsOnTheFleetMedianAndSaysSo) {
  Options options = AllSuites();
  options.baselines = {};
  Script s;
  s.nic["node-03"] = 0.5;
  const Outcome o = RunToEnd(H100Fleet(8), options, s);
  ASSERT_EQ(o.error, "");
  const NodeVerdict* v = o.report.Find("node-03");
  EXPECT_EQ(v->verdict, Verdict::kDegraded);
  EXPECT_THAT(v->evidence.back().text, HasSubstr("alone: no expected value for 8 x 400G pair"));
  EXPECT_THAT(o.report.findings,
              Contains(testing::AllOf(Field(&Finding::kind, FindingKind::kMedianOnly),
                                      Field(&Finding::text, HasSubstr("fleet median alone")))));

  // Two nodes and no figure: nothing to judge by, and said.
  const Outcome two = RunToEnd(H100Fleet(2), options, Script{});
  ASSERT_EQ(two.error, "");
  EXPECT_THAT(two.report.findings, Contains(Field(&Finding::kind, FindingKind::kNotJudged)));
  for (const NodeVerdict& n : two.report.nodes) {
    EXPECT_EQ(n.verdict, Verdict::kUntestable);
    EXPECT_THAT(n.reason, HasSubstr("pair results could not be judged"));
  }
}

TEST(SuitesTest, FleetSuiteRunsOneTestOverTheHealthyNodes) {
  Options options = AllSuites();
  options.suites.push_back(Suite::kFleet);
  Script s;
  s.node["node-05"] = 0.5;
  s.fleet = 0.6;  // congestion at scale
  const Outcome o = RunToEnd(H100Fleet(8), options, s);
  ASSERT_EQ(o.error, "");
  const std::vector<Round> fleet = test::RoundsOf(o, TestKind::kFleet);
  ASSERT_EQ(fleet.size(), 1u);
  ASSERT_EQ(fleet[0].tests.size(), 1u);
  EXPECT_EQ(fleet[0].tests[0].nodes.size(), 7u);
  EXPECT_THAT(fleet[0].tests[0].nodes, Not(Contains("node-05")));
  EXPECT_EQ(o.report.fleet_tests, 1);
  EXPECT_THAT(o.report.findings,
              Contains(testing::AllOf(Field(&Finding::kind, FindingKind::kFleetTestSlow),
                                      Field(&Finding::bad, true))));
}

// Issue 29: a fleet test in which nothing moved names no node (every node
// did well in pairs) but is a bad finding: never a pass.
TEST(SuitesTest, AFleetTestThatCarriesNothingIsABadFindingNamingNoNode) {
  Options options = AllSuites();
  options.suites.push_back(Suite::kFleet);
  Script s;
  s.fleet_stuck = true;
  const Outcome o = RunToEnd(H100Fleet(6), options, s);
  ASSERT_EQ(o.error, "");
  for (const NodeVerdict& v : o.report.nodes) EXPECT_EQ(v.verdict, Verdict::kHealthy) << v.node;
  EXPECT_THAT(o.report.findings,
              Contains(testing::AllOf(Field(&Finding::kind, FindingKind::kFleetTestFailed),
                                      Field(&Finding::bad, true))));
  EXPECT_TRUE(o.report.AnyBad());
}

TEST(SuitesTest, ASingleNodeIsJudgedByIntraAndThePairsSaySoInAFinding) {
  const Outcome o = RunToEnd(H100Fleet(1), AllSuites(), Script{});
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.report.pair_rounds, 0);
  EXPECT_EQ(o.report.nodes[0].verdict, Verdict::kHealthy);
  EXPECT_FALSE(o.report.nodes[0].network_judged);
  EXPECT_THAT(o.report.findings, Contains(Field(&Finding::kind, FindingKind::kTooFewNodes)));
  // Issue 33 item 8: "1 nodes".
  EXPECT_THAT(ValidationSummary(o.report), testing::StartsWith("1 node: 1 healthy"));
}

// Issue 33 item 8: a class of nodes without GPUs (Gloo) read "no expected
// value for no GPU x0 intra".
TEST(SuitesTest, ANodeWithoutGpusIsNamedAsSuch) {
  std::vector<Node> fleet = H100Fleet(2);
  for (Node& node : fleet) {
    node.gpu_model.clear();
    node.gpu_count = 0;
  }
  Options options = AllSuites();
  options.baselines = {};
  // Intra alone: the scripted fleet's pair tests need rails (GPUs).
  options.suites = {Suite::kPreflight, Suite::kIntra};
  const Outcome o = RunToEnd(fleet, options, Script{});
  ASSERT_EQ(o.error, "");
  std::string text;
  for (const NodeVerdict& v : o.report.nodes) {
    absl::StrAppend(&text, v.reason, "\n");
    for (const auto& e : v.evidence) absl::StrAppend(&text, e.text, "\n");
  }
  for (const Finding& f : o.report.findings) absl::StrAppend(&text, f.text, "\n");
  EXPECT_THAT(text, Not(HasSubstr("x0")));
  EXPECT_THAT(text, Not(HasSubstr("no GPU")));
  EXPECT_THAT(text, HasSubstr("no expected value for CPU-only intra"));
  EXPECT_THAT(ValidationSummary(o.report), testing::StartsWith("2 nodes: "));
}

TEST(ContractTest, CreateRefusesBadInputNamingTheField) {
  struct Case {
    std::string name;
    std::vector<Node> nodes;
    Options options;
    std::string error;
  };
  std::vector<Node> dup = H100Fleet(2);
  dup[1].name = dup[0].name;
  std::vector<Node> unnamed = H100Fleet(2);
  unnamed[1].name = "";
  Options tol;
  tol.tolerance = 0.7;
  Options none;
  none.suites = {};
  Options rounds;
  rounds.max_pair_rounds = 0;
  const Case cases[] = {
      {"no nodes", {}, Options{}, "nodes: no node"},
      {"duplicate", dup, Options{}, "nodes[1].name: 'node-00' given twice"},
      {"unnamed", unnamed, Options{}, "nodes[1].name: empty"},
      {"tolerance", H100Fleet(2), tol, "tolerance: 0.7 is outside (0, 0.5]"},
      {"suites", H100Fleet(2), none, "suites: none selected"},
      {"rounds", H100Fleet(2), rounds, "max_pair_rounds"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    absl::StatusOr<std::unique_ptr<Validation>> v = Validation::Create(c.nodes, c.options);
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(v.status().message()), HasSubstr(c.error));
  }
}

TEST(ContractTest, ParsesSuitesAndStrategies) {
  EXPECT_EQ(*ParseSuites("preflight, intra,pairs"),
            (std::vector<Suite>{Suite::kPreflight, Suite::kIntra, Suite::kPairs}));
  EXPECT_THAT(std::string(ParseSuites("pairs,bogus").status().message()),
              HasSubstr("suite: unknown suite 'bogus'"));
  EXPECT_EQ(*ParseStrategy("all-pairs"), Strategy::kAllPairs);
  EXPECT_FALSE(ParseStrategy("random").ok());
}

TEST(ContractTest, RecordChecksEachResultAgainstItsTest) {
  absl::StatusOr<std::unique_ptr<Validation>> created =
      Validation::Create(H100Fleet(4), AllSuites());
  ASSERT_TRUE(created.ok());
  Validation& v = **created;
  absl::StatusOr<Round> round = v.NextRound();
  ASSERT_TRUE(round.ok());
  ASSERT_EQ(round->tests.size(), 4u);
  const int64_t id = round->tests[0].id;
  EXPECT_EQ(v.Record(TestResult::Completed(999, 1)).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(v.Record(TestResult::InfraFailure(id, {"node-03"}, "x")).code(),
            absl::StatusCode::kInvalidArgument);  // node-03 is not in test 1
  EXPECT_EQ(v.Record(TestResult::HardwareFailure(id, {}, "x")).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(v.Record(TestResult::Completed(id, -1)).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(v.Record(TestResult::Completed(id, 0, {{8, 10}})).code(),
            absl::StatusCode::kInvalidArgument);  // 8 GPUs: rails 0..7
  EXPECT_EQ(v.NextRound().status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(v.Record(TestResult::Completed(id, 380)).ok());
  EXPECT_EQ(v.Record(TestResult::Completed(id, 380)).code(), absl::StatusCode::kFailedPrecondition);
  for (size_t i = 1; i < round->tests.size(); ++i) {
    ASSERT_TRUE(v.Record(TestResult::Completed(round->tests[i].id, 380)).ok());
  }
  EXPECT_FALSE(v.Report().done);
  absl::StatusOr<Round> next = v.NextRound();
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->kind, TestKind::kPair);
  EXPECT_EQ(next->number, 2);
}

}  // namespace
}  // namespace eb::validation
