#include "coordinator/validation/node_verdicts.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "coordinator/validation/report_builder.h"

namespace eb::validation {
namespace {

// What the suites say of one node.
struct NodeFacts {
  const ValidationState& state;
  const SuiteAssessment& assessment;
  int node;
  const IntraNode& intra;
  const PairNode& pair;
  std::string pair_partners;  // the partners of its implicating pair tests
};

std::string PairPartnerNames(const ValidationState& s, const std::vector<size_t>& which, int node) {
  std::vector<std::string> names;
  for (size_t k : which) {
    const Observation& o = s.observations[k];
    if (o.nodes.size() == 2) names.push_back(s.nodes[o.Partner(node)].name);
  }
  return absl::StrJoin(names, ", ");
}

// Every recorded test of the node, in order.
std::vector<size_t> RecordedTestsOf(const ValidationState& s, int node) {
  std::vector<size_t> out;
  for (size_t k = 0; k < s.observations.size(); ++k) {
    if (s.observations[k].recorded && s.observations[k].Has(node)) out.push_back(k);
  }
  return out;
}

Verdict BadVerdict(bool failed) { return failed ? Verdict::kFailed : Verdict::kDegraded; }

// "intra: slow in 2 of 3 tests"
std::string IntraBadReason(const IntraNode& in) {
  return absl::StrCat("intra: ", in.failed ? "failed" : "slow", " in ", in.bad.size(), " of ",
                      in.tests.size(), " tests");
}

// Preflight found it unlike the fleet's majority: it was not tested, and its
// evidence is the preflight's reasons.
NodeVerdict UnfitVerdict(const ValidationState& s, int i) {
  NodeVerdict v;
  v.node = s.nodes[i].name;
  v.verdict = Verdict::kUnfit;
  v.reason = absl::StrCat("preflight: ", absl::StrJoin(s.preflight[i].reasons, "; "));
  for (const std::string& r : s.preflight[i].reasons) {
    Evidence e;
    e.text = absl::StrCat("preflight: ", r);
    v.evidence.push_back(e);
  }
  return v;
}

bool BlamedByPairs(PairStatus status) {
  return status == PairStatus::kConfirmed || status == PairStatus::kSuspect ||
         status == PairStatus::kIntermittent;
}

// Pairs blamed it: confirmed (two partners that did well elsewhere agree),
// suspect (one so far), or intermittent (it also did well).
void JudgeByPairBlame(const NodeFacts& f, NodeVerdict& v) {
  const PairNode& pn = f.pair;
  v.verdict = BadVerdict(pn.failed);
  v.network_judged = true;
  if (pn.status == PairStatus::kConfirmed && !pn.rail_drift.empty()) {
    v.bad_rails = pn.bad_rails;
    v.reason = absl::StrCat("did well as a whole, but ", pn.rail_drift);
  } else if (pn.status == PairStatus::kConfirmed) {
    v.bad_rails = pn.bad_rails;
    v.reason =
        absl::StrCat(pn.failed ? "failed" : "slow", " in ", pn.implicating.size(),
                     " pair tests with partners that did well elsewhere (", f.pair_partners, ")");
    if (!pn.bad_rails.empty()) {
      absl::StrAppend(&v.reason, "; rails ", absl::StrJoin(pn.bad_rails, ", "));
    }
  } else if (pn.status == PairStatus::kSuspect) {
    v.confidence = Confidence::kSuspect;
    v.bad_rails = pn.bad_rails;
    v.reason =
        absl::StrCat(pn.failed ? "failed" : "slow", " once with a partner that did well",
                     " elsewhere (", f.pair_partners, "); ",
                     f.state.done ? "no second trusted partner was available" : "to be confirmed");
  } else {
    v.confidence = Confidence::kSuspect;
    v.reason = absl::StrCat("intermittent: did well in ", pn.fine.size(), " pair tests, ",
                            pn.failed ? "failed" : "slow", " in ", pn.implicating.size(),
                            " with partners that did well (", f.pair_partners, ")");
  }
}

// Intra suspects it (one bad result, or bad and fine ones) and pairs did not
// blame it.
void JudgeByIntraSuspicion(const NodeFacts& f, NodeVerdict& v) {
  v.verdict = BadVerdict(f.intra.failed);
  v.confidence = Confidence::kSuspect;
  v.network_judged = f.pair.status == PairStatus::kHealthy;
  v.reason = absl::StrCat(IntraBadReason(f.intra),
                          f.intra.status == IntraStatus::kIntermittent ? " (intermittent)" : "");
}

void JudgeClearedByPairs(const IntraNode& in, NodeVerdict& v) {
  v.network_judged = true;
  v.reason = in.status == IntraStatus::kHealthy ? "intra and pairs did well" : "pairs did well";
  if (in.noise) absl::StrAppend(&v.reason, " (one borderline intra result not reproduced)");
}

// Why the pair suite, which the node took part in, could not judge it.
const char* WhyPairsCouldNotJudge(const NodeFacts& f) {
  if (f.assessment.no_trusted) {
    return "no node passed a pair test, so pairs cannot tell nodes apart";
  }
  if (f.assessment.unjudged_pair) {
    return "pair results could not be judged (no expected value, too few nodes)";
  }
  if (f.state.pair_round_limit) return "the pair round limit was reached";
  if (f.pair.status == PairStatus::kUntested) return "no pair test completed";
  return "no partner that did well was left to test with";
}

// Pairs could not judge it: fall back to intra, unless its pair tests were
// slow or failed with partners that never did well either: then nothing
// tells it from them or from the path between them (issue 29: nothing
// unjudged is ever healthy; the pairs are listed as paths not localized).
void JudgeWherePairsCouldNot(const NodeFacts& f, NodeVerdict& v) {
  const char* why = WhyPairsCouldNotJudge(f);
  if (f.pair.status == PairStatus::kUnresolved) {
    v.verdict = Verdict::kUntestable;
    v.reason = absl::StrCat(
        "its pair tests were slow or failed, only with partners that never did well either: "
        "nothing could tell it from them or from the paths between them (",
        why, ")");
  } else if (f.intra.status == IntraStatus::kHealthy) {
    v.reason = absl::StrCat("intra did well; network not judged: ", why);
  } else {
    v.verdict = Verdict::kUntestable;
    v.reason = absl::StrCat("network not judged: ", why);
  }
}

// Pairs did not test it: intra's verdict, or preflight's where intra did
// not run either.
void JudgeWithoutPairs(const NodeFacts& f, NodeVerdict& v) {
  const ValidationState& s = f.state;
  const IntraNode& in = f.intra;
  if (in.status == IntraStatus::kHealthy) {
    v.reason =
        absl::StrCat("intra did well", in.noise ? " (one borderline result not reproduced)" : "");
    if (!s.not_paired_reason.empty() && !s.not_paired_reason[f.node].empty()) {
      absl::StrAppend(&v.reason, "; ", s.not_paired_reason[f.node]);
    }
  } else if (in.status == IntraStatus::kUnjudged) {
    v.verdict = Verdict::kUntestable;
    v.reason = "intra ran but could not be judged (no expected value, too few nodes)";
  } else if (in.status == IntraStatus::kUntested && HasSuite(s.options, Suite::kIntra)) {
    v.verdict = Verdict::kUntestable;
    v.reason = "no intra result";
  } else {
    v.reason = HasSuite(s.options, Suite::kPreflight) ? "preflight only: matches the fleet"
                                                      : "nothing judged it";
    if (!HasSuite(s.options, Suite::kPreflight)) v.verdict = Verdict::kUntestable;
  }
}

// A node preflight found fit: the first rule that applies decides. An
// infrastructure failure comes first (never a hardware verdict), then
// intra's confirmed verdict (such a node sits pairs out), pairs' blame,
// intra's suspicion, pairs' clearance, intra where pairs could not judge,
// and intra or preflight alone where pairs did not test the node.
void JudgeFitNode(const NodeFacts& f, NodeVerdict& v) {
  const IntraNode& in = f.intra;
  const PairNode& pn = f.pair;
  if (f.state.lost[f.node]) {
    v.verdict = Verdict::kUntestable;
    v.reason = f.state.lost_reason[f.node];
  } else if (in.status == IntraStatus::kConfirmed) {
    v.verdict = BadVerdict(in.failed);
    v.reason = absl::StrCat(IntraBadReason(in), "; not pair-tested");
  } else if (in.status == IntraStatus::kLost || pn.status == PairStatus::kLost) {
    v.verdict = Verdict::kUntestable;
    v.reason = "two tests could not run (infrastructure, not hardware)";
  } else if (BlamedByPairs(pn.status)) {
    JudgeByPairBlame(f, v);
  } else if (in.status == IntraStatus::kIntermittent || in.status == IntraStatus::kSuspect) {
    JudgeByIntraSuspicion(f, v);
  } else if (pn.status == PairStatus::kHealthy) {
    JudgeClearedByPairs(in, v);
  } else if (f.assessment.in_pairs[f.node] && pn.status != PairStatus::kOut) {
    JudgeWherePairsCouldNot(f, v);
  } else {
    JudgeWithoutPairs(f, v);
  }
}

NodeVerdict JudgeNode(const ValidationState& s, const SuiteAssessment& a, int i) {
  if (!s.Fit(i)) return UnfitVerdict(s, i);
  const PairNode& pn = a.pairs.nodes[i];
  const NodeFacts facts{s, a, i, a.intra[i], pn, PairPartnerNames(s, pn.implicating, i)};
  NodeVerdict v;
  v.node = s.nodes[i].name;
  for (size_t k : RecordedTestsOf(s, i)) {
    v.evidence.push_back(MakeEvidence(s, s.observations[k], i));
  }
  JudgeFitNode(facts, v);
  // Stopped early, "untestable" would read like an infrastructure failure of
  // the node: say that the validation never got to it.
  if (!s.stopped_reason.empty() && v.verdict == Verdict::kUntestable && !s.lost[i]) {
    v.reason = absl::StrCat("not reached: the validation stopped (", s.stopped_reason,
                            ") before this node was tested enough; ", v.reason);
  }
  return v;
}

}  // namespace

SuiteAssessment AssessSuites(const ValidationState& s) {
  SuiteAssessment a;
  a.intra = AssessIntra(s.observations, s.in_intra, s.lost, s.options.max_intra_tests);
  a.in_pairs = s.pairs_started ? s.in_pairs : std::vector<bool>(s.size(), false);
  a.pairs =
      AssessPairs(s.observations, a.in_pairs, s.lost, s.options.strategy == Strategy::kAdaptive);
  bool slow_pair = false;
  for (const Observation& o : s.observations) {
    if (o.kind != TestKind::kPair || !o.Completed() || !o.graded) continue;
    slow_pair = slow_pair || IsSlow(o.grade);
    a.unjudged_pair = a.unjudged_pair || o.grade == Grade::kUnjudged;
  }
  a.no_trusted = s.pairs_started && slow_pair && !a.pairs.any_capable;
  return a;
}

std::vector<NodeVerdict> JudgeNodes(const ValidationState& s, const SuiteAssessment& assessment) {
  std::vector<NodeVerdict> nodes;
  nodes.reserve(s.nodes.size());
  for (int i = 0; i < s.size(); ++i) nodes.push_back(JudgeNode(s, assessment, i));
  return nodes;
}

void AttributeFleetFailures(const ValidationState& s, std::vector<NodeVerdict>& nodes) {
  for (const Observation& o : s.observations) {
    if (o.kind != TestKind::kFleet || o.outcome != Outcome::kHardwareFailure) continue;
    // Nothing moved among all of them (no_progress): no node is named; the
    // fleet test's finding (bad) says so.
    if (o.nodes.size() > 1 && o.named.size() == o.nodes.size()) continue;
    for (int i : o.named) {
      NodeVerdict& v = nodes[i];
      if (v.verdict != Verdict::kHealthy) continue;
      v.verdict = Verdict::kFailed;
      v.confidence = Confidence::kSuspect;
      v.reason = absl::StrCat("the fleet test failed, attributed to it: ", o.message);
    }
  }
}

}  // namespace eb::validation
