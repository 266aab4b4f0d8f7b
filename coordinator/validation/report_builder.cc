#include "coordinator/validation/report_builder.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/validation/intra_inference.h"
#include "coordinator/validation/pair_inference.h"

namespace eb::validation {
namespace {

std::string Rails(const std::vector<int>& rails) { return absl::StrJoin(rails, ", "); }

std::string Partners(const ValidationState& s, const std::vector<size_t>& which, int node) {
  std::vector<std::string> names;
  for (size_t k : which) {
    const Observation& o = s.observations[k];
    if (o.nodes.size() == 2) names.push_back(s.nodes[o.Partner(node)].name);
  }
  return absl::StrJoin(names, ", ");
}

void AddEvidence(const ValidationState& s, const std::vector<size_t>& which, int node,
                 NodeVerdict& v) {
  for (size_t k : which) v.evidence.push_back(MakeEvidence(s, s.observations[k], node));
}

// Every recorded test of the node, in order.
std::vector<size_t> TestsOf(const ValidationState& s, int node) {
  std::vector<size_t> out;
  for (size_t k = 0; k < s.observations.size(); ++k) {
    if (s.observations[k].recorded && s.observations[k].Has(node)) out.push_back(k);
  }
  return out;
}

Verdict BadVerdict(bool failed) { return failed ? Verdict::kFailed : Verdict::kDegraded; }

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

ValidationReport BuildReport(const ValidationState& s) {
  const int n = s.size();
  ValidationReport report;
  report.done = s.done;
  report.rounds = s.rounds;
  for (const RoundSummary& r : s.rounds) {
    if (r.kind == TestKind::kIntra) ++report.intra_rounds, report.intra_tests += r.tests;
    if (r.kind == TestKind::kPair) ++report.pair_rounds, report.pair_tests += r.tests;
    if (r.kind == TestKind::kFleet) report.fleet_tests += r.tests;
  }
  const std::vector<IntraNode> intra =
      AssessIntra(s.observations, s.in_intra, s.lost, s.options.max_intra_tests);
  const std::vector<bool> in_pairs = s.pairs_started ? s.in_pairs : std::vector<bool>(n, false);
  const PairAssessment pairs =
      AssessPairs(s.observations, in_pairs, s.lost, s.options.strategy == Strategy::kAdaptive);
  // A slow pair and nobody who did well: pairs cannot localize anything.
  bool slow_pair = false, unjudged_pair = false;
  for (const Observation& o : s.observations) {
    if (o.kind != TestKind::kPair || !o.Completed() || !o.graded) continue;
    slow_pair = slow_pair || IsSlow(o.grade);
    unjudged_pair = unjudged_pair || o.grade == Grade::kUnjudged;
  }
  const bool no_trusted = s.pairs_started && slow_pair && !pairs.any_capable;

  for (int i = 0; i < n; ++i) {
    NodeVerdict v;
    v.node = s.nodes[i].name;
    const IntraNode& in = intra[i];
    const PairNode& pn = pairs.nodes[i];
    const std::string pair_partner_list = Partners(s, pn.implicating, i);
    if (!s.Fit(i)) {
      v.verdict = Verdict::kUnfit;
      v.reason = absl::StrCat("preflight: ", absl::StrJoin(s.preflight[i].reasons, "; "));
      for (const std::string& r : s.preflight[i].reasons) {
        Evidence e;
        e.text = absl::StrCat("preflight: ", r);
        v.evidence.push_back(e);
      }
      report.nodes.push_back(std::move(v));
      continue;
    }
    AddEvidence(s, TestsOf(s, i), i, v);
    if (s.lost[i]) {
      v.verdict = Verdict::kUntestable;
      v.reason = s.lost_reason[i];
    } else if (in.status == IntraStatus::kConfirmed) {
      v.verdict = BadVerdict(in.failed);
      v.reason = absl::StrCat("intra: ", in.failed ? "failed" : "slow", " in ", in.bad.size(),
                              " of ", in.tests.size(), " tests; not pair-tested");
    } else if (in.status == IntraStatus::kLost || pn.status == PairStatus::kLost) {
      v.verdict = Verdict::kUntestable;
      v.reason = "two tests could not run (infrastructure, not hardware)";
    } else if (pn.status == PairStatus::kConfirmed) {
      v.verdict = BadVerdict(pn.failed);
      v.network_judged = true;
      v.bad_rails = pn.bad_rails;
      v.reason = absl::StrCat(pn.failed ? "failed" : "slow", " in ", pn.implicating.size(),
                              " pair tests with partners that did well elsewhere (",
                              pair_partner_list, ")");
      if (!pn.bad_rails.empty()) absl::StrAppend(&v.reason, "; rails ", Rails(pn.bad_rails));
    } else if (pn.status == PairStatus::kSuspect) {
      v.verdict = BadVerdict(pn.failed);
      v.confidence = Confidence::kSuspect;
      v.network_judged = true;
      v.bad_rails = pn.bad_rails;
      v.reason =
          absl::StrCat(pn.failed ? "failed" : "slow", " once with a partner that did well",
                       " elsewhere (", pair_partner_list, "); ",
                       s.done ? "no second trusted partner was available" : "to be confirmed");
    } else if (pn.status == PairStatus::kIntermittent) {
      v.verdict = BadVerdict(pn.failed);
      v.confidence = Confidence::kSuspect;
      v.network_judged = true;
      v.reason = absl::StrCat("intermittent: did well in ", pn.fine.size(), " pair tests, ",
                              pn.failed ? "failed" : "slow", " in ", pn.implicating.size(),
                              " with partners that did well (", pair_partner_list, ")");
    } else if (in.status == IntraStatus::kIntermittent || in.status == IntraStatus::kSuspect) {
      v.verdict = BadVerdict(in.failed);
      v.confidence = Confidence::kSuspect;
      v.network_judged = pn.status == PairStatus::kHealthy;
      v.reason = absl::StrCat("intra: ", in.failed ? "failed" : "slow", " in ", in.bad.size(),
                              " of ", in.tests.size(), " tests",
                              in.status == IntraStatus::kIntermittent ? " (intermittent)" : "");
    } else if (pn.status == PairStatus::kHealthy) {
      v.network_judged = true;
      v.reason = in.status == IntraStatus::kHealthy ? "intra and pairs did well" : "pairs did well";
      if (in.noise) absl::StrAppend(&v.reason, " (one borderline intra result not reproduced)");
    } else if (in_pairs[i] && pn.status != PairStatus::kOut) {
      // Pairs could not judge it: fall back to intra.
      const std::string why =
          no_trusted      ? "no node passed a pair test, so pairs cannot tell nodes apart"
          : unjudged_pair ? "pair results could not be judged (no expected value, too few nodes)"
          : s.pair_round_limit                 ? "the pair round limit was reached"
          : pn.status == PairStatus::kUntested ? "no pair test completed"
                                               : "no partner that did well was left to test with";
      if (in.status == IntraStatus::kHealthy) {
        v.reason = absl::StrCat("intra did well; network not judged: ", why);
      } else {
        v.verdict = Verdict::kUntestable;
        v.reason = absl::StrCat("network not judged: ", why);
      }
    } else if (in.status == IntraStatus::kHealthy) {
      v.reason =
          absl::StrCat("intra did well", in.noise ? " (one borderline result not reproduced)" : "");
      if (!s.not_paired_reason.empty() && !s.not_paired_reason[i].empty()) {
        absl::StrAppend(&v.reason, "; ", s.not_paired_reason[i]);
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
    if (!s.stopped_reason.empty() && v.verdict == Verdict::kUntestable && !s.lost[i]) {
      v.reason = absl::StrCat("not reached: the validation stopped (", s.stopped_reason,
                              ") before this node was tested enough; ", v.reason);
    }
    for (int r : v.bad_rails) {
      report.rails.push_back({v.node, r, v.verdict, v.confidence,
                              absl::StrCat("slow in every pair test that blames ", v.node)});
    }
    report.nodes.push_back(std::move(v));
  }

  // Fleet-test failures attributed to nodes that were healthy until then.
  for (const Observation& o : s.observations) {
    if (o.kind != TestKind::kFleet || o.outcome != Outcome::kHardwareFailure) continue;
    for (int i : o.named) {
      NodeVerdict& v = report.nodes[i];
      if (v.verdict != Verdict::kHealthy) continue;
      v.verdict = Verdict::kFailed;
      v.confidence = Confidence::kSuspect;
      v.reason = absl::StrCat("the fleet test failed, attributed to it: ", o.message);
    }
  }

  for (const PathCandidate& c : pairs.paths) {
    if (c.state != PathState::kConfirmed && c.state != PathState::kSuspect) continue;
    PathVerdict p;
    p.a = s.nodes[c.a].name;
    p.b = s.nodes[c.b].name;
    p.confidence = c.state == PathState::kConfirmed ? Confidence::kConfirmed : Confidence::kSuspect;
    p.rails = c.rails;
    p.reason = absl::StrCat("slow together in ", c.slow.size(),
                            " tests while both did well with other partners");
    if (!c.rails.empty()) absl::StrAppend(&p.reason, "; rails ", Rails(c.rails));
    for (size_t k : c.slow) p.evidence.push_back(MakeEvidence(s, s.observations[k], c.a));
    report.paths.push_back(std::move(p));
  }
  // Slow pairs nobody could localize: neither node did well anywhere.
  std::set<std::pair<int, int>> unlocalized;
  for (size_t k = 0; k < s.observations.size(); ++k) {
    const Observation& o = s.observations[k];
    if (o.kind != TestKind::kPair || !o.Slow()) continue;
    const int a = std::min(o.nodes[0], o.nodes[1]);
    const int b = std::max(o.nodes[0], o.nodes[1]);
    auto unproven = [&](int i) {
      return pairs.nodes[i].status == PairStatus::kUnresolved ||
             (no_trusted && pairs.nodes[i].status == PairStatus::kSuspect);
    };
    if (!unproven(a) || !unproven(b) || !unlocalized.insert({a, b}).second) continue;
    PathVerdict p;
    p.a = s.nodes[a].name;
    p.b = s.nodes[b].name;
    p.reason = absl::StrCat("slow, and neither node did well with anyone: ", p.a, ", ", p.b,
                            " or the link between them (not localized)");
    p.rails = o.slow_rails;
    p.evidence.push_back(MakeEvidence(s, o, a));
    report.paths.push_back(std::move(p));
  }

  // Findings.
  if (no_trusted) {
    report.findings.push_back(
        {FindingKind::kNoTrustedNode, false,
         "no node passed a pair test: pairs cannot localize; node verdicts rest on intra and "
         "preflight, and the slow pairs are listed as not localized"});
  }
  std::set<std::string> below, unjudged, median_only;
  for (const Observation& o : s.observations) {
    if (!o.Completed() || !o.graded) continue;
    if (o.yardstick.fleet_below_expected && below.insert(TestKindName(o.kind)).second) {
      report.findings.push_back({FindingKind::kFleetBelowExpected, true,
                                 absl::StrCat(TestKindName(o.kind), ": ", o.yardstick.basis)});
    }
    if (!o.yardstick.expected_gbps && o.yardstick.fleet_median_gbps &&
        median_only.insert(TestKindName(o.kind)).second) {
      report.findings.push_back(
          {FindingKind::kMedianOnly, false,
           absl::StrCat(TestKindName(o.kind), ": ", o.yardstick.expected_description,
                        ": verdicts rest on the fleet median alone (", o.yardstick.fleet_nodes,
                        " nodes); if most of them are slow, so is the median")});
    }
    if (o.aggregate_grade == Grade::kUnjudged && unjudged.insert(TestKindName(o.kind)).second) {
      report.findings.push_back(
          {FindingKind::kNotJudged, false,
           absl::StrCat(TestKindName(o.kind), ": ", o.yardstick.basis,
                        "; pass a baselines file with a figure for this hardware")});
    }
  }
  if (s.pair_round_limit) {
    report.findings.push_back({FindingKind::kRoundLimit, false,
                               absl::StrCat("stopped after ", s.options.max_pair_rounds,
                                            " pair rounds with evidence still short")});
  }
  if (s.pairs_too_few) {
    report.findings.push_back(
        {FindingKind::kTooFewNodes, false, "fewer than 2 testable nodes: no pair test ran"});
  }
  for (const Observation& o : s.observations) {
    if (o.kind != TestKind::kFleet || !o.recorded) continue;
    const Evidence e = MakeEvidence(s, o, -1);
    if (o.Slow()) {
      report.findings.push_back(
          {FindingKind::kFleetTestSlow, true,
           absl::StrCat("every pair did well, but together they are slow (congestion at scale?): ",
                        e.text)});
    } else if (o.outcome != Outcome::kCompleted) {
      report.findings.push_back(
          {FindingKind::kFleetTestFailed, o.outcome == Outcome::kHardwareFailure, e.text});
    }
  }
  for (const Finding& f : s.findings) report.findings.push_back(f);
  return report;
}

}  // namespace eb::validation
