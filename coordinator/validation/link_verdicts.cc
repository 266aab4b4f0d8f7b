#include "coordinator/validation/link_verdicts.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/topology/link_report.h"
#include "coordinator/validation/link_observations.h"
#include "coordinator/validation/link_rounds.h"
#include "coordinator/validation/report_builder.h"

namespace eb::validation {
namespace {

namespace topo = topology;

// What the link report blames, and whose hardware each blamed link is.
struct Blame {
  std::map<int, int> owner;                      // link id -> node whose cable it is, or -1
  std::set<std::tuple<int, int, int>> collided;  // (low node, high node, rail)
};

class LinkJudge {
 public:
  explicit LinkJudge(const ValidationState& s)
      : s_(s),
        index_(*s.fabric),
        observations_(LinkObservationsOf(s.observations, s.single_rail)),
        assessment_(topo::AssessLinks(index_, kLinkRouting, observations_)),
        judged_(topo::JudgeLinks(index_, observations_, assessment_, s.link_plan)) {
    for (const topo::LinkVerdict& v : judged_.links) blame_.owner[v.link] = -1;
    for (const topo::RailVerdict& v : judged_.rails) blame_.owner[v.link] = v.node;
    for (const topo::NodeLinkVerdict& v : judged_.nodes) {
      for (int rail = 0; rail < index_.rail_count(); ++rail) {
        if (int cable = index_.CableOf(v.node, rail); cable >= 0) blame_.owner[cable] = v.node;
      }
    }
    for (const topo::InseparableVerdict& v : judged_.inseparable) {
      for (int link : v.links) {
        const topo::Link& l = index_.links()[link];
        blame_.owner.emplace(link, l.kind == topo::LinkKind::kCable ? l.node : -1);
      }
    }
    for (const topo::CollisionVerdict& v : judged_.collisions) {
      blame_.collided.insert({std::min(v.a, v.b), std::max(v.a, v.b), v.rail});
    }
  }

  const topo::LinkReport& judged() const { return judged_; }

  // Whether a fault of someone other than `node` (-1: anyone) explains the
  // slow rail `rail` of pair test `test_id`.
  bool Explained(int64_t test_id, int rail, int node) const {
    for (size_t k = 0; k < observations_.size(); ++k) {
      const topo::LinkObservation& o = observations_[k];
      if (o.test_id != test_id || o.rail != rail) continue;
      if (blame_.collided.count({std::min(o.a, o.b), std::max(o.a, o.b), rail}) > 0) return true;
      for (int link : assessment_.paths[k].links) {
        auto it = blame_.owner.find(link);
        if (it != blame_.owner.end() && (node < 0 || it->second != node)) return true;
      }
      return false;
    }
    return false;
  }

  // Whether the test did well on every rail: evidence that blames nobody.
  bool Fine(int64_t test_id) const {
    const Observation* o = Find(test_id);
    return o != nullptr && o->Completed() && o->graded && !o->Slow() &&
           LinkSlowRails(*o, s_.single_rail).empty();
  }

  // Whether every slow rail of the pair test `test_id` is explained.
  bool TestExplained(int64_t test_id, int node) const {
    const Observation* o = Find(test_id);
    if (o == nullptr || o->kind != TestKind::kPair || !o->Completed()) return false;
    const std::vector<int> slow = LinkSlowRails(*o, s_.single_rail);
    return !slow.empty() && std::all_of(slow.begin(), slow.end(),
                                        [&](int rail) { return Explained(test_id, rail, node); });
  }

  std::vector<Evidence> EvidenceOf(const std::vector<size_t>& which) const {
    std::vector<Evidence> out;
    std::set<int64_t> seen;
    for (size_t k : which) {
      const topo::LinkObservation& lo = observations_[k];
      const Observation* o = Find(lo.test_id);
      if (o == nullptr || !seen.insert(lo.test_id).second) continue;
      Evidence e = MakeEvidence(s_, *o, -1);
      e.rail = lo.rail;
      out.push_back(std::move(e));
    }
    return out;
  }

  double LowestRatio(const std::vector<size_t>& which) const {
    double ratio = 1;
    for (size_t k : which) ratio = std::min(ratio, observations_[k].ratio);
    return ratio;
  }

  int RailOf(const std::vector<size_t>& which) const {
    return which.empty() ? 0 : observations_[which.front()].rail;
  }

  LinkEnd SwitchEnd(int id, const std::vector<int>& ports) const {
    LinkEnd end;
    end.switch_name = index_.SwitchName(id);
    if (s_.options.fabric != nullptr) {
      auto it = s_.options.fabric->switch_guids.find(end.switch_name);
      if (it != s_.options.fabric->switch_guids.end()) end.switch_guid = it->second;
    }
    end.ports = ports;
    return end;
  }

  LinkVerdict Ends(int link) const {
    const topo::Link& l = index_.links()[link];
    LinkVerdict v;
    std::vector<int> leaf_ports, spine_ports;
    for (const auto& [leaf_port, spine_port] : l.ports) {
      leaf_ports.push_back(leaf_port);
      spine_ports.push_back(spine_port);
    }
    if (l.kind == topo::LinkKind::kCable) {
      v.a.node = index_.NodeName(l.node);
      v.a.hca = l.hca;
      v.b = SwitchEnd(l.leaf, leaf_ports);
      v.rail = l.rail;
    } else {
      v.a = SwitchEnd(l.leaf, leaf_ports);
      v.b = SwitchEnd(l.spine, spine_ports);
    }
    return v;
  }

  std::string Describe(int link) const { return index_.Describe(link); }

 private:
  const Observation* Find(int64_t test_id) const {
    for (const Observation& o : s_.observations) {
      if (o.test_id == test_id) return &o;
    }
    return nullptr;
  }

  const ValidationState& s_;
  const topo::FabricIndex& index_;
  std::vector<topo::LinkObservation> observations_;
  topo::LinkAssessment assessment_;
  topo::LinkReport judged_;
  Blame blame_;
};

Confidence ConfidenceOf(bool confirmed) {
  return confirmed ? Confidence::kConfirmed : Confidence::kSuspect;
}

void AddLinks(const LinkJudge& judge, ValidationReport& report) {
  for (const topo::LinkVerdict& v : judge.judged().links) {
    LinkVerdict out = judge.Ends(v.link);
    out.rail = judge.RailOf(v.evidence);
    out.confidence = ConfidenceOf(v.confirmed);
    out.ratio = v.ratio;
    out.reason = absl::StrFormat(
        "%s: slow in %d pair tests crossing it (%.0f%% of expected), every other link of their "
        "paths fine elsewhere",
        judge.Describe(v.link), v.evidence.size(), 100 * v.ratio);
    out.evidence = judge.EvidenceOf(v.evidence);
    report.links.push_back(std::move(out));
  }
  for (const topo::InseparableVerdict& v : judge.judged().inseparable) {
    for (int link : v.links) {
      LinkVerdict out = judge.Ends(link);
      if (!v.evidence.empty()) out.rail = judge.RailOf(v.evidence);
      out.confidence = Confidence::kSuspect;
      out.evidence = judge.EvidenceOf(v.evidence);
      out.ratio = judge.LowestRatio(v.evidence);
      for (int other : v.links) {
        if (other != link) out.inseparable_from.push_back(judge.Describe(other));
      }
      out.reason = absl::StrCat(
          "one of ", v.links.size(),
          " links that no pair test of this fleet can tell apart: ", judge.Describe(link));
      report.links.push_back(std::move(out));
    }
  }
}

// Node-side cables: rail verdicts of their node (one per node and rail).
void AddCableRails(const LinkJudge& judge, const ValidationState& s, ValidationReport& report) {
  for (const topo::RailVerdict& v : judge.judged().rails) {
    const std::string& node = s.nodes[v.node].name;
    const std::string reason = absl::StrFormat(
        "%s: slow in %d pair tests (%.0f%% of expected) with partners fine on "
        "other paths",
        judge.Describe(v.link), v.evidence.size(), 100 * v.ratio);
    auto it = std::find_if(report.rails.begin(), report.rails.end(), [&](const RailVerdict& r) {
      return r.node == node && r.rail == v.rail;
    });
    if (it != report.rails.end()) {
      it->reason = reason;
      continue;
    }
    report.rails.push_back({node, v.rail, Verdict::kDegraded, ConfidenceOf(v.confirmed), reason});
  }
}

// Node verdicts that only the fabric's faults explain are withdrawn.
void ClearExplainedNodes(const LinkJudge& judge, const ValidationState& s,
                         ValidationReport& report) {
  for (size_t i = 0; i < report.nodes.size(); ++i) {
    NodeVerdict& v = report.nodes[i];
    if (v.verdict != Verdict::kDegraded || v.evidence.empty()) continue;
    // Its fine tests ("did well in 1") blame nothing; every other one must
    // be a slow pair test that someone else's fault explains.
    int slow = 0;
    const bool explained =
        std::all_of(v.evidence.begin(), v.evidence.end(), [&](const Evidence& e) {
          if (e.test_id > 0 && judge.Fine(e.test_id)) return true;
          ++slow;
          return e.test_id > 0 && judge.TestExplained(e.test_id, static_cast<int>(i));
        });
    if (!explained || slow == 0) continue;
    v.verdict = Verdict::kHealthy;
    v.confidence = Confidence::kConfirmed;
    v.reason =
        "slow only in pair tests that a fault of the fabric explains (see links, rails, paths)";
    v.bad_rails.clear();
    const std::string& name = s.nodes[i].name;
    report.rails.erase(std::remove_if(report.rails.begin(), report.rails.end(),
                                      [&](const RailVerdict& r) { return r.node == name; }),
                       report.rails.end());
  }
}

// Paths: a collision is named as such; a path another verdict explains goes.
void ReplacePaths(const LinkJudge& judge, const ValidationState& s, ValidationReport& report) {
  std::vector<PathVerdict> paths;
  for (PathVerdict& p : report.paths) {
    const bool explained =
        p.verdict == Verdict::kDegraded && !p.evidence.empty() &&
        std::all_of(p.evidence.begin(), p.evidence.end(), [&](const Evidence& e) {
          return e.test_id > 0 && judge.TestExplained(e.test_id, -1);
        });
    if (!explained) paths.push_back(std::move(p));
  }
  for (const topo::CollisionVerdict& c : judge.judged().collisions) {
    PathVerdict p;
    p.a = s.nodes[c.a].name;
    p.b = s.nodes[c.b].name;
    p.confidence = ConfidenceOf(c.confirmed);
    p.rails = {c.rail};
    p.routing_collision = true;
    p.reason = absl::StrCat("routing collision on rail ", c.rail, ": ", p.a, " and ", p.b,
                            " slow only together (", c.confirmed ? "twice" : "once",
                            "), every link of their path fine in other pairs");
    p.evidence = judge.EvidenceOf(c.evidence);
    paths.push_back(std::move(p));
  }
  report.paths = std::move(paths);
}

}  // namespace

void DropPathsTheFabricExplains(const ValidationState& s, PairAssessment& assessment) {
  std::vector<PathCandidate>& paths = assessment.paths;
  auto waiting = [](const PathCandidate& c) { return c.state == PathState::kNeedsRetest; };
  if (s.fabric == nullptr || std::none_of(paths.begin(), paths.end(), waiting)) return;
  const LinkJudge judge(s);
  auto explained = [&](const PathCandidate& c) {
    return waiting(c) && !c.slow.empty() &&
           std::all_of(c.slow.begin(), c.slow.end(), [&](size_t k) {
             return judge.TestExplained(s.observations[k].test_id, -1);
           });
  };
  paths.erase(std::remove_if(paths.begin(), paths.end(), explained), paths.end());
}

void ApplyLinkVerdicts(const ValidationState& s, ValidationReport& report) {
  if (s.fabric == nullptr) return;
  const LinkJudge judge(s);
  AddLinks(judge, report);
  ClearExplainedNodes(judge, s, report);
  AddCableRails(judge, s, report);
  ReplacePaths(judge, s, report);
  if (s.link_round_limit) {
    report.findings.push_back({FindingKind::kRoundLimit, false,
                               absl::StrCat("stopped after ", s.options.max_link_rounds,
                                            " link rounds with links still to tell apart")});
  }
}

}  // namespace eb::validation
