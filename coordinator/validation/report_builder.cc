#include "coordinator/validation/report_builder.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/validation/link_verdicts.h"
#include "coordinator/validation/node_verdicts.h"

namespace eb::validation {
namespace {

// How many rounds and tests each suite took.
void CountRounds(const std::vector<RoundSummary>& rounds, ValidationReport& report) {
  for (const RoundSummary& r : rounds) {
    if (r.kind == TestKind::kIntra) ++report.intra_rounds, report.intra_tests += r.tests;
    if (r.kind == TestKind::kPair) ++report.pair_rounds, report.pair_tests += r.tests;
    if (r.kind == TestKind::kFleet) report.fleet_tests += r.tests;
  }
}

// A rail of a node that pairs blamed: slow in every pair test that blames
// the node, judged as the node is.
std::vector<RailVerdict> RailVerdicts(const std::vector<NodeVerdict>& nodes) {
  std::vector<RailVerdict> rails;
  for (const NodeVerdict& v : nodes) {
    for (int r : v.bad_rails) {
      rails.push_back({v.node, r, v.verdict, v.confidence,
                       absl::StrCat("slow in every pair test that blames ", v.node)});
    }
  }
  return rails;
}

// Bad paths: two nodes that each did well with others but were slow
// together (confirmed by the re-test, or suspect without re-tests).
std::vector<PathVerdict> LocalizedPathVerdicts(const ValidationState& s,
                                               const PairAssessment& pairs) {
  std::vector<PathVerdict> paths;
  for (const PathCandidate& c : pairs.paths) {
    if (c.state != PathState::kConfirmed && c.state != PathState::kSuspect) continue;
    PathVerdict p;
    p.a = s.nodes[c.a].name;
    p.b = s.nodes[c.b].name;
    p.confidence = c.state == PathState::kConfirmed ? Confidence::kConfirmed : Confidence::kSuspect;
    p.rails = c.rails;
    const bool failed = std::any_of(c.slow.begin(), c.slow.end(), [&](size_t k) {
      return s.observations[k].outcome == Outcome::kHardwareFailure;
    });
    p.verdict = failed ? Verdict::kFailed : Verdict::kDegraded;
    p.reason = absl::StrCat(failed ? "failed or slow" : "slow", " together in ", c.slow.size(),
                            " tests while both did well with other partners");
    if (!c.rails.empty()) absl::StrAppend(&p.reason, "; rails ", absl::StrJoin(c.rails, ", "));
    for (size_t k : c.slow) p.evidence.push_back(MakeEvidence(s, s.observations[k], c.a));
    paths.push_back(std::move(p));
  }
  return paths;
}

// Slow or failed pairs nobody could localize: neither node did well
// anywhere. Each node pair is listed once, with its first such test.
void AddUnlocalizedPathVerdicts(const ValidationState& s, const SuiteAssessment& a,
                                std::vector<PathVerdict>& paths) {
  auto unproven = [&](int i) {
    return a.pairs.nodes[i].status == PairStatus::kUnresolved ||
           (a.no_trusted && a.pairs.nodes[i].status == PairStatus::kSuspect);
  };
  std::set<std::pair<int, int>> unlocalized;
  for (const Observation& o : s.observations) {
    // A failure that names both nodes (nothing moved between them) counts
    // like a slow result; one naming a single node blamed that node.
    const bool failed = o.outcome == Outcome::kHardwareFailure && o.named.size() == 2;
    if (o.kind != TestKind::kPair || o.nodes.size() != 2 || !(o.Slow() || failed)) continue;
    const int first = std::min(o.nodes[0], o.nodes[1]);
    const int second = std::max(o.nodes[0], o.nodes[1]);
    if (!unproven(first) || !unproven(second) || !unlocalized.insert({first, second}).second) {
      continue;
    }
    PathVerdict p;
    p.a = s.nodes[first].name;
    p.b = s.nodes[second].name;
    p.verdict = failed ? Verdict::kFailed : Verdict::kDegraded;
    p.reason =
        absl::StrCat(failed ? "failed" : "slow", ", and neither node did well with anyone: ", p.a,
                     ", ", p.b, " or the link between them (not localized)");
    p.rails = o.slow_rails;
    p.evidence.push_back(MakeEvidence(s, o, first));
    paths.push_back(std::move(p));
  }
}

// What the yardsticks say of the fleet, once per kind of test: its median
// below the expected figure, verdicts that rest on the median alone, or
// nothing to judge by.
void AddYardstickFindings(const ValidationState& s, std::vector<Finding>& findings) {
  std::set<std::string> below, unjudged, median_only;
  for (const Observation& o : s.observations) {
    if (!o.Completed() || !o.graded) continue;
    if (o.yardstick.fleet_below_expected && below.insert(TestKindName(o.kind)).second) {
      findings.push_back({FindingKind::kFleetBelowExpected, true,
                          absl::StrCat(TestKindName(o.kind), ": ", o.yardstick.basis)});
    }
    if (!o.yardstick.expected_gbps && o.yardstick.fleet_median_gbps &&
        median_only.insert(TestKindName(o.kind)).second) {
      findings.push_back(
          {FindingKind::kMedianOnly, false,
           absl::StrCat(TestKindName(o.kind), ": ", o.yardstick.expected_description,
                        ": verdicts rest on the fleet median alone (", o.yardstick.fleet_nodes,
                        " nodes); if most of them are slow, so is the median")});
    }
    if (o.aggregate_grade == Grade::kUnjudged && unjudged.insert(TestKindName(o.kind)).second) {
      findings.push_back({FindingKind::kNotJudged, false,
                          absl::StrCat(TestKindName(o.kind), ": ", o.yardstick.basis,
                                       "; pass a baselines file with a figure for this hardware")});
    }
  }
}

// The fleet suite's test: slow although every pair did well, or failed.
void AddFleetTestFindings(const ValidationState& s, std::vector<Finding>& findings) {
  for (const Observation& o : s.observations) {
    if (o.kind != TestKind::kFleet || !o.recorded) continue;
    const Evidence e = MakeEvidence(s, o, -1);
    if (o.Slow()) {
      findings.push_back(
          {FindingKind::kFleetTestSlow, true,
           absl::StrCat("every pair did well, but together they are slow (congestion at scale?): ",
                        e.text)});
    } else if (o.outcome != Outcome::kCompleted) {
      findings.push_back(
          {FindingKind::kFleetTestFailed, o.outcome == Outcome::kHardwareFailure, e.text});
    }
  }
}

// Planned tests that ended without a measurement: they could not run (an
// infrastructure failure) or, once the validation is over, were never
// reached. Not a hardware verdict, and not a pass either (issue 29).
void AddUnjudgedTestsFinding(const ValidationState& s, std::vector<Finding>& findings) {
  std::vector<std::string> unjudged;
  size_t count = 0;
  for (const Observation& o : s.observations) {
    const bool unrun = o.recorded && o.outcome == Outcome::kInfraFailure;
    if (!unrun && (o.recorded || !s.done)) continue;
    ++count;
    if (unjudged.size() < 5) {
      unjudged.push_back(unrun ? MakeEvidence(s, o, -1).text
                               : absl::StrCat("round ", o.round, " ", TestKindName(o.kind),
                                              " test ", o.test_id, ": never finished"));
    }
  }
  if (count == 0) return;
  findings.push_back(
      {FindingKind::kTestsUnjudged, false,
       absl::StrCat(count, " planned test", count == 1 ? "" : "s",
                    " ended without a measurement, so the validation is not a pass: ",
                    absl::StrJoin(unjudged, "; "), count > unjudged.size() ? "; ..." : "")});
}

// Findings about the fleet as a whole (docs/VALIDATION.md "Verdicts").
std::vector<Finding> Findings(const ValidationState& s, bool no_trusted) {
  std::vector<Finding> findings;
  if (no_trusted) {
    findings.push_back(
        {FindingKind::kNoTrustedNode, false,
         "no node passed a pair test: pairs cannot localize; node verdicts rest on intra and "
         "preflight, and the slow pairs are listed as not localized"});
  }
  AddYardstickFindings(s, findings);
  if (s.pair_round_limit) {
    findings.push_back({FindingKind::kRoundLimit, false,
                        absl::StrCat("stopped after ", s.options.max_pair_rounds,
                                     " pair rounds with evidence still short")});
  }
  if (s.pairs_too_few) {
    findings.push_back(
        {FindingKind::kTooFewNodes, false, "fewer than 2 testable nodes: no pair test ran"});
  }
  AddFleetTestFindings(s, findings);
  AddUnjudgedTestsFinding(s, findings);
  for (const Finding& f : s.findings) findings.push_back(f);
  return findings;
}

}  // namespace

Evidence MakeEvidence(const ValidationState& s, const Observation& o, int node) {
  Evidence e;
  e.test_id = o.test_id;
  e.round = o.round;
  e.kind = o.kind;
  e.outcome = o.outcome;
  for (int i : o.nodes) {
    if (i != node && o.kind != TestKind::kFleet) e.partners.push_back(s.nodes[i].name);
  }
  std::string head = absl::StrCat("round ", o.round, " ", TestKindName(o.kind));
  if (!e.partners.empty()) absl::StrAppend(&head, " with ", absl::StrJoin(e.partners, ", "));
  if (o.kind == TestKind::kFleet) absl::StrAppend(&head, " (", o.nodes.size(), " nodes)");
  switch (o.outcome) {
    case Outcome::kInfraFailure:
      e.text = absl::StrCat(head, ": could not run: ", o.message);
      return e;
    case Outcome::kHardwareFailure: {
      std::vector<std::string> named;
      for (int i : o.named) named.push_back(s.nodes[i].name);
      e.grade = Grade::kSlow;
      e.text = absl::StrCat(head, ": failed (attributed to ", absl::StrJoin(named, ", "),
                            "): ", o.message);
      return e;
    }
    case Outcome::kCompleted:
      break;
  }
  e.measured_gbps = o.busbw_gbps;
  e.grade = o.grade;
  e.threshold_gbps = o.yardstick.threshold_gbps();
  e.expected_gbps = o.yardstick.expected_gbps;
  e.fleet_median_gbps = o.yardstick.fleet_median_gbps;
  if (!o.graded) {
    e.text = absl::StrFormat("%s: %.3g GB/s (not graded yet)", head, o.busbw_gbps);
  } else if (o.aggregate_grade == Grade::kUnjudged) {
    e.text = absl::StrFormat("%s: %.3g GB/s, %s", head, o.busbw_gbps, o.yardstick.basis);
  } else {
    e.text = absl::StrFormat("%s: %.3g GB/s, %s (threshold %.3g GB/s = %.2f x %s)", head,
                             o.busbw_gbps, GradeName(o.aggregate_grade), e.threshold_gbps,
                             1 - o.yardstick.tolerance, o.yardstick.basis);
  }
  if (!o.slow_rails.empty() && o.rail_yardstick.has_value()) {
    std::vector<std::string> rails;
    for (const RailResult& r : o.rails) {
      if (std::find(o.slow_rails.begin(), o.slow_rails.end(), r.rail) == o.slow_rails.end()) {
        continue;
      }
      rails.push_back(absl::StrFormat("%d (%.3g GB/s)", r.rail, r.busbw_gbps));
    }
    absl::StrAppendFormat(&e.text, "; slow rails: %s, below %.3g GB/s = %.2f x %s",
                          absl::StrJoin(rails, ", "), o.rail_yardstick->clear_gbps(),
                          1 - 2 * o.rail_yardstick->tolerance, o.rail_yardstick->basis);
    if (o.slow_rails.size() == 1) e.rail = o.slow_rails.front();
  }
  return e;
}

// The rails each node's completed pair tests measured, for the nodes whose
// network was judged: what its verdict covers (the sentinel dates each
// rail by it).
void FillJudgedRails(const ValidationState& s, std::vector<NodeVerdict>& nodes) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].network_judged) continue;
    std::set<int> rails;
    for (const Observation& o : s.observations) {
      if (o.kind != TestKind::kPair || !o.Completed() || !o.Has(static_cast<int>(i))) continue;
      for (const RailResult& r : o.rails) rails.insert(r.rail);
    }
    nodes[i].judged_rails.assign(rails.begin(), rails.end());
  }
}

ValidationReport BuildReport(const ValidationState& s) {
  ValidationReport report;
  report.done = s.done;
  report.rounds = s.rounds;
  CountRounds(s.rounds, report);
  const SuiteAssessment assessment = AssessSuites(s);
  report.nodes = JudgeNodes(s, assessment);
  FillJudgedRails(s, report.nodes);
  report.rails = RailVerdicts(report.nodes);
  AttributeFleetFailures(s, report.nodes);
  report.paths = LocalizedPathVerdicts(s, assessment.pairs);
  AddUnlocalizedPathVerdicts(s, assessment, report.paths);
  report.findings = Findings(s, assessment.no_trusted);
  ApplyLinkVerdicts(s, report);
  return report;
}

}  // namespace eb::validation
