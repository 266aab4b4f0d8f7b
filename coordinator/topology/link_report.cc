#include "coordinator/topology/link_report.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace eb::topology {
namespace {

double LowestRatio(const std::vector<LinkObservation>& observations,
                   const std::vector<size_t>& which) {
  double ratio = 1;
  for (size_t k : which) ratio = std::min(ratio, observations[k].ratio);
  return ratio;
}

}  // namespace

LinkReport JudgeLinks(const FabricIndex& index, const std::vector<LinkObservation>& observations,
                      const LinkAssessment& assessment, const LinkPlan& last_plan) {
  LinkReport report;
  std::map<int, std::vector<RailVerdict>> cables_of;  // node -> its bad cables
  for (size_t l = 0; l < assessment.state.size(); ++l) {
    if (assessment.state[l] != LinkState::kBad) continue;
    const Link& link = index.links()[l];
    const int id = static_cast<int>(l);
    const double ratio = LowestRatio(observations, assessment.slow_with[l]);
    if (link.kind == LinkKind::kUplink) {
      report.links.push_back({id, assessment.confirmed[l], ratio, assessment.slow_with[l]});
    } else {
      cables_of[link.node].push_back(
          {link.node, link.rail, id, assessment.confirmed[l], ratio, assessment.slow_with[l]});
    }
  }
  for (auto& [node, cables] : cables_of) {
    int cabled = 0;
    for (int rail = 0; rail < index.rail_count(); ++rail) cabled += index.CableOf(node, rail) >= 0;
    if (cabled > 1 && static_cast<int>(cables.size()) == cabled) {
      NodeLinkVerdict verdict;
      verdict.node = node;
      verdict.confirmed = true;
      std::set<size_t> evidence;
      for (const RailVerdict& rail : cables) {
        verdict.confirmed = verdict.confirmed && rail.confirmed;
        verdict.ratio = std::min(verdict.ratio, rail.ratio);
        evidence.insert(rail.evidence.begin(), rail.evidence.end());
      }
      verdict.evidence.assign(evidence.begin(), evidence.end());
      report.nodes.push_back(std::move(verdict));
      continue;
    }
    for (RailVerdict& rail : cables) report.rails.push_back(std::move(rail));
  }
  for (const Collision& c : assessment.collisions) {
    if (c.state == CollisionState::kNotReproduced) continue;
    report.collisions.push_back({c.a, c.b, c.rail, c.state == CollisionState::kConfirmed, c.slow});
  }
  std::set<std::vector<int>> inseparable(last_plan.inseparable.begin(),
                                         last_plan.inseparable.end());
  for (const std::vector<int>& links : inseparable) {
    InseparableVerdict verdict;
    verdict.links = links;
    for (size_t k : assessment.open) {
      if (assessment.candidates[k] == links) verdict.evidence.push_back(k);
    }
    report.inseparable.push_back(std::move(verdict));
  }
  std::set<std::vector<int>> unresolved;
  for (size_t k : assessment.open) {
    if (inseparable.count(assessment.candidates[k]) == 0)
      unresolved.insert(assessment.candidates[k]);
  }
  report.unresolved.assign(unresolved.begin(), unresolved.end());
  return report;
}

std::string DescribeLinkReport(const FabricIndex& index, const LinkReport& report) {
  std::string out;
  auto confidence = [](bool confirmed) { return confirmed ? "confirmed" : "suspect"; };
  for (const NodeLinkVerdict& v : report.nodes) {
    absl::StrAppendFormat(&out, "node %s: degraded on every rail (%s, %.0f%% of expected)\n",
                          index.NodeName(v.node), confidence(v.confirmed), 100 * v.ratio);
  }
  for (const RailVerdict& v : report.rails) {
    absl::StrAppendFormat(&out, "node %s rail %d: %s degraded (%s, %.0f%% of expected)\n",
                          index.NodeName(v.node), v.rail, index.Describe(v.link),
                          confidence(v.confirmed), 100 * v.ratio);
  }
  for (const LinkVerdict& v : report.links) {
    absl::StrAppendFormat(&out, "link %s: degraded (%s, %.0f%% of expected, %d tests)\n",
                          index.Describe(v.link), confidence(v.confirmed), 100 * v.ratio,
                          v.evidence.size());
  }
  for (const CollisionVerdict& v : report.collisions) {
    absl::StrAppendFormat(&out,
                          "pair %s - %s rail %d: routing collision, slow only together, every "
                          "link of its path fine in other pairs (%s)\n",
                          index.NodeName(v.a), index.NodeName(v.b), v.rail,
                          v.confirmed ? "confirmed" : "seen once");
  }
  for (const InseparableVerdict& v : report.inseparable) {
    absl::StrAppend(&out, "one of ", v.links.size(), " links no pair test can tell apart:");
    for (int link : v.links) absl::StrAppend(&out, " [", index.Describe(link), "]");
    absl::StrAppend(&out, "\n");
  }
  for (const std::vector<int>& links : report.unresolved) {
    absl::StrAppend(&out, "unresolved (rounds ran out), one of:");
    for (int link : links) absl::StrAppend(&out, " [", index.Describe(link), "]");
    absl::StrAppend(&out, "\n");
  }
  return out;
}

}  // namespace eb::topology
