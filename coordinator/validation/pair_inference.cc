#include "coordinator/validation/pair_inference.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace eb::validation {
namespace {

// Per node, what its pair tests said, before any inference.
struct Tally {
  std::vector<size_t> fine;
  std::vector<size_t> slow;    // slow, or failed without a single culprit
  std::vector<size_t> direct;  // hardware failure attributed to this node alone
  std::vector<size_t> unrun;   // infra failures that named nobody
};

// Whether an observation points at rails rather than at whole nodes: a
// minority of its rails clearly slow, and every other rail fine (at or above
// the rail threshold). A node slow as a whole near the rail threshold has
// some rails just under it and the rest borderline: that is not a rail.
bool RailSpecific(const Observation& o) {
  if (o.slow_rails.empty() || 2 * o.slow_rails.size() > o.rails.size()) return false;
  if (!o.rail_yardstick.has_value()) return false;
  for (const RailResult& r : o.rails) {
    const bool slow =
        std::find(o.slow_rails.begin(), o.slow_rails.end(), r.rail) != o.slow_rails.end();
    if (!slow && r.busbw_gbps < o.rail_yardstick->threshold_gbps()) return false;
  }
  return true;
}

// Rails slow in every observation of `which`, when at least `needed` of them
// are RailSpecific: a node slow as a whole is not blamed on a rail, while a
// bad rail seen once alone and once next to a flaky partner (every rail
// slow) still is.
std::vector<int> IntersectRails(const std::vector<Observation>& obs,
                                const std::vector<size_t>& which, size_t needed) {
  std::vector<int> rails;
  bool first = true;
  size_t minority = 0;
  for (size_t k : which) {
    const Observation& o = obs[k];
    if (o.outcome != Outcome::kCompleted) return {};
    if (RailSpecific(o)) ++minority;
    if (first) {
      rails = o.slow_rails;
      first = false;
      continue;
    }
    std::vector<int> kept;
    for (int r : rails) {
      if (std::find(o.slow_rails.begin(), o.slow_rails.end(), r) != o.slow_rails.end()) {
        kept.push_back(r);
      }
    }
    rails = std::move(kept);
  }
  return minority >= needed ? rails : std::vector<int>{};
}

// What the pair tests say before anyone is judged: each node's tally, which
// nodes are capable, and whom each node was slow with. It answers who is a
// good witness against a node, and who is intermittent.
struct PairWitnesses {
  std::vector<Tally> tally;
  // Took part, is not lost, and did well once: a bad node cannot (faults
  // only slow things down), so one fine result clears it.
  std::vector<bool> capable;
  std::vector<std::set<int>> ambiguous_partners;  // capable partners each node was slow with

  // Whether `p` has slowness that its test with `besides` does not explain:
  // a failure attributed to it alone, or slow with another capable node.
  bool Unexplained(int p, int besides) const {
    if (!tally[p].direct.empty()) return true;
    for (int q : ambiguous_partners[p]) {
      if (q != besides) return true;
    }
    return false;
  }

  // A good witness against `i`: did well, and is not slow with others.
  bool GoodWitness(int p, int i) const { return capable[p] && !Unexplained(p, i); }

  // Slow with two good witnesses although it did well elsewhere. A witness
  // slow with others too is no witness: two flaky partners would otherwise
  // make a healthy node look intermittent.
  bool Intermittent(int i) const {
    if (!capable[i]) return false;
    if (!tally[i].direct.empty()) return true;
    int witnesses = 0;
    for (int p : ambiguous_partners[i]) witnesses += GoodWitness(p, i) ? 1 : 0;
    return witnesses >= 2;
  }
};

// Per node, what its recorded pair tests said: fine, slow, a failure
// attributed to it alone, or an infra failure that named nobody.
std::vector<Tally> TallyPairTests(const std::vector<Observation>& obs, size_t n) {
  std::vector<Tally> tally(n);
  for (size_t k = 0; k < obs.size(); ++k) {
    const Observation& o = obs[k];
    if (o.kind != TestKind::kPair || !o.recorded || o.nodes.size() != 2) continue;
    for (int i : o.nodes) {
      switch (o.outcome) {
        case Outcome::kCompleted:
          if (!o.graded) break;
          if (o.grade == Grade::kFine) tally[i].fine.push_back(k);
          if (IsSlow(o.grade)) tally[i].slow.push_back(k);
          break;
        case Outcome::kHardwareFailure:
          if (!o.Names(i)) break;  // attributed to the partner: no evidence here
          (o.named.size() == 1 ? tally[i].direct : tally[i].slow).push_back(k);
          break;
        case Outcome::kInfraFailure:
          if (o.named.empty()) tally[i].unrun.push_back(k);
          break;
      }
    }
  }
  return tally;
}

PairWitnesses GatherWitnesses(const std::vector<Observation>& obs,
                              const std::vector<bool>& in_pairs, const std::vector<bool>& lost) {
  const size_t n = in_pairs.size();
  PairWitnesses w;
  w.tally = TallyPairTests(obs, n);
  w.capable.assign(n, false);
  for (size_t i = 0; i < n; ++i) w.capable[i] = in_pairs[i] && !lost[i] && !w.tally[i].fine.empty();
  w.ambiguous_partners.resize(n);
  for (size_t i = 0; i < n; ++i) {
    for (size_t k : w.tally[i].slow) {
      const int p = obs[k].Partner(static_cast<int>(i));
      if (w.capable[p]) w.ambiguous_partners[i].insert(p);
    }
  }
  return w;
}

// The evidence against a node that never did well: every failure attributed
// to it alone, then its slow tests with good witnesses, one per partner (a
// second test with the same partner is no independent observation).
void CollectImplicating(const std::vector<Observation>& obs, const PairWitnesses& w, int i,
                        PairNode& node) {
  std::set<int> partners;
  for (size_t k : w.tally[i].direct) {
    node.implicating.push_back(k);
    partners.insert(obs[k].Partner(i));
    node.failed = true;
  }
  for (size_t k : w.tally[i].slow) {
    const int p = obs[k].Partner(i);
    if (!w.GoodWitness(p, i) || partners.count(p) != 0) continue;
    node.implicating.push_back(k);
    partners.insert(p);
    if (obs[k].outcome == Outcome::kHardwareFailure) node.failed = true;
  }
  std::sort(node.implicating.begin(), node.implicating.end());
}

// A node that never did well: confirmed bad with two implicating
// observations that agree on how slow it is (three when they disagree), a
// suspect with one; with none, untested or unresolved (slow only with
// unproven partners). All but the confirmed want another test.
void JudgeNeverFineNode(const std::vector<Observation>& obs, const PairWitnesses& w, int i,
                        PairNode& node) {
  CollectImplicating(obs, w, i, node);
  const size_t count = node.implicating.size();
  if (count >= 2 && (count >= 3 || ObservationsAgree(obs, node.implicating))) {
    node.status = PairStatus::kConfirmed;
    node.bad_rails = IntersectRails(obs, node.implicating, 1);
  } else if (count >= 1) {
    node.status = PairStatus::kSuspect;
    node.wants_test = true;
    node.bad_rails = IntersectRails(obs, node.implicating, 1);
  } else {
    node.status = w.tally[i].slow.empty() && w.tally[i].direct.empty() ? PairStatus::kUntested
                                                                       : PairStatus::kUnresolved;
    node.wants_test = true;
  }
}

// A capable node that is intermittent: implicated by the failures
// attributed to it and by its slow tests with good witnesses.
void JudgeIntermittentNode(const std::vector<Observation>& obs, const PairWitnesses& w, int i,
                           PairNode& node) {
  const Tally& tally = w.tally[i];
  node.status = PairStatus::kIntermittent;
  node.failed = !tally.direct.empty();
  node.implicating = tally.direct;
  for (size_t k : node.ambiguous) {
    if (w.GoodWitness(obs[k].Partner(i), i)) node.implicating.push_back(k);
  }
  std::sort(node.implicating.begin(), node.implicating.end());
  // One failure, nothing run since: re-test once before calling it.
  if (!tally.direct.empty()) {
    const size_t strike = tally.direct.front();
    node.wants_test =
        std::none_of(tally.fine.begin(), tally.fine.end(), [&](size_t k) { return k > strike; });
  }
}

// A capable node (it did well once, so it is not slow as a whole):
// confirmed failed with two failures attributed to it alone, intermittent,
// or healthy; a healthy node slow with no capable node is a trusted partner.
void JudgeCapableNode(const std::vector<Observation>& obs, const PairWitnesses& w, int i,
                      PairNode& node) {
  for (size_t k : w.tally[i].slow) {
    if (w.capable[obs[k].Partner(i)]) node.ambiguous.push_back(k);
  }
  if (w.tally[i].direct.size() >= 2) {
    node.status = PairStatus::kConfirmed;
    node.failed = true;
    node.implicating = w.tally[i].direct;
  } else if (w.Intermittent(i)) {
    JudgeIntermittentNode(obs, w, i, node);
  } else {
    node.status = PairStatus::kHealthy;
    node.reliable = w.ambiguous_partners[i].empty();
  }
  // A test of it that could not run, nothing run since: re-test it once
  // with another partner (issue 29), so that a pair left unjudged does not
  // leave its nodes judged by older results alone.
  if (!w.tally[i].unrun.empty() && !node.wants_test) {
    const size_t strike = w.tally[i].unrun.back();
    node.wants_test = std::none_of(w.tally[i].fine.begin(), w.tally[i].fine.end(),
                                   [&](size_t k) { return k > strike; }) &&
                      std::none_of(w.tally[i].slow.begin(), w.tally[i].slow.end(),
                                   [&](size_t k) { return k > strike; });
  }
}

// One node's status: out of the suite, lost (its agent, or two infra
// failures that named nobody), or judged as capable or not.
void JudgePairNode(const std::vector<Observation>& obs, const PairWitnesses& w, int i,
                   bool in_pairs, bool lost, PairNode& node) {
  node.infra_strikes = static_cast<int>(w.tally[i].unrun.size());
  node.fine = w.tally[i].fine;
  if (!in_pairs) return;
  if (lost || node.infra_strikes >= 2) {
    node.status = PairStatus::kLost;
  } else if (!w.capable[i]) {
    JudgeNeverFineNode(obs, w, i, node);
  } else {
    JudgeCapableNode(obs, w, i, node);
  }
}

// Path candidates: two healthy nodes (capable, neither intermittent) slow
// together. Slow twice (and more often than fine) is a bad path; fine once
// means the first result is not reproduced; otherwise it awaits its re-test,
// or stays a suspect where there are no re-tests (all-pairs).
std::vector<PathCandidate> AssessPathCandidates(const std::vector<Observation>& obs,
                                                const std::vector<PairNode>& nodes,
                                                const PairWitnesses& w, bool retests) {
  std::map<std::pair<int, int>, PathCandidate> paths;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    if (nodes[i].status != PairStatus::kHealthy) continue;
    for (int p : w.ambiguous_partners[i]) {
      if (p < i || nodes[p].status != PairStatus::kHealthy) continue;
      PathCandidate& c = paths[{i, p}];
      c.a = i;
      c.b = p;
    }
  }
  for (size_t k = 0; k < obs.size(); ++k) {
    const Observation& o = obs[k];
    if (o.kind != TestKind::kPair || !o.graded || o.nodes.size() != 2) continue;
    auto it = paths.find({std::min(o.nodes[0], o.nodes[1]), std::max(o.nodes[0], o.nodes[1])});
    if (it == paths.end()) continue;
    // A failure that names both nodes counts against the path like a slow
    // result (one naming a single node made that node intermittent).
    if (o.Fine()) it->second.fine.push_back(k);
    if (o.Slow() || o.outcome == Outcome::kHardwareFailure) it->second.slow.push_back(k);
  }
  std::vector<PathCandidate> out;
  for (auto& [key, c] : paths) {
    if (c.slow.size() >= 2 && c.slow.size() > c.fine.size()) {
      c.state = PathState::kConfirmed;
    } else if (!c.fine.empty()) {
      c.state = PathState::kNotReproduced;
    } else {
      c.state = retests ? PathState::kNeedsRetest : PathState::kSuspect;
    }
    if (c.state == PathState::kConfirmed || c.state == PathState::kSuspect) {
      c.rails = IntersectRails(obs, c.slow, 1);
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace

PairAssessment AssessPairs(const std::vector<Observation>& obs, const std::vector<bool>& in_pairs,
                           const std::vector<bool>& lost, bool retests) {
  const PairWitnesses witnesses = GatherWitnesses(obs, in_pairs, lost);
  PairAssessment out;
  out.nodes.resize(in_pairs.size());
  for (size_t i = 0; i < in_pairs.size(); ++i) {
    out.any_capable = out.any_capable || witnesses.capable[i];
    JudgePairNode(obs, witnesses, static_cast<int>(i), in_pairs[i], lost[i], out.nodes[i]);
  }
  out.paths = AssessPathCandidates(obs, out.nodes, witnesses, retests);
  return out;
}

}  // namespace eb::validation
