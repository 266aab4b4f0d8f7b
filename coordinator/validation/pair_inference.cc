#include "coordinator/validation/pair_inference.h"

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
  int strikes = 0;             // infra failures that named nobody
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

}  // namespace

PairAssessment AssessPairs(const std::vector<Observation>& obs, const std::vector<bool>& in_pairs,
                           const std::vector<bool>& lost, bool retests) {
  const int n = static_cast<int>(in_pairs.size());
  PairAssessment out;
  out.nodes.resize(n);
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
          if (o.named.empty()) ++tally[i].strikes;
          break;
      }
    }
  }

  std::vector<bool> capable(n, false);
  for (int i = 0; i < n; ++i) {
    capable[i] = in_pairs[i] && !lost[i] && !tally[i].fine.empty();
    out.any_capable = out.any_capable || capable[i];
  }
  // Capable partners each node was slow with.
  std::vector<std::set<int>> ambiguous_partners(n);
  for (int i = 0; i < n; ++i) {
    for (size_t k : tally[i].slow) {
      const int p = obs[k].Partner(i);
      if (capable[p]) ambiguous_partners[i].insert(p);
    }
  }
  auto unexplained = [&](int p, int besides) {
    if (!tally[p].direct.empty()) return true;
    for (int q : ambiguous_partners[p]) {
      if (q != besides) return true;
    }
    return false;
  };
  // A good witness against `i`: did well, and is not slow with others.
  auto good_witness = [&](int p, int i) { return capable[p] && !unexplained(p, i); };
  // Slow with two good witnesses although it did well elsewhere. A witness
  // slow with others too is no witness: two flaky partners would otherwise
  // make a healthy node look intermittent.
  auto intermittent = [&](int i) {
    if (!capable[i]) return false;
    if (!tally[i].direct.empty()) return true;
    int witnesses = 0;
    for (int p : ambiguous_partners[i]) witnesses += good_witness(p, i) ? 1 : 0;
    return witnesses >= 2;
  };

  for (int i = 0; i < n; ++i) {
    PairNode& node = out.nodes[i];
    node.infra_strikes = tally[i].strikes;
    node.fine = tally[i].fine;
    if (!in_pairs[i]) continue;
    if (lost[i] || tally[i].strikes >= 2) {
      node.status = PairStatus::kLost;
      continue;
    }
    if (!capable[i]) {
      std::set<int> partners;
      for (size_t k : tally[i].direct) {
        node.implicating.push_back(k);
        partners.insert(obs[k].Partner(i));
        node.failed = true;
      }
      for (size_t k : tally[i].slow) {
        const int p = obs[k].Partner(i);
        if (!good_witness(p, i) || partners.count(p) != 0) continue;
        node.implicating.push_back(k);
        partners.insert(p);
        if (obs[k].outcome == Outcome::kHardwareFailure) node.failed = true;
      }
      std::sort(node.implicating.begin(), node.implicating.end());
      const size_t count = node.implicating.size();
      if (count >= 2 && (count >= 3 || ObservationsAgree(obs, node.implicating))) {
        node.status = PairStatus::kConfirmed;
        node.bad_rails = IntersectRails(obs, node.implicating, 1);
      } else if (count >= 1) {
        node.status = PairStatus::kSuspect;
        node.wants_test = true;
        node.bad_rails = IntersectRails(obs, node.implicating, 1);
      } else {
        node.status = tally[i].slow.empty() && tally[i].direct.empty() ? PairStatus::kUntested
                                                                       : PairStatus::kUnresolved;
        node.wants_test = true;
      }
      continue;
    }
    for (size_t k : tally[i].slow) {
      if (capable[obs[k].Partner(i)]) node.ambiguous.push_back(k);
    }
    if (tally[i].direct.size() >= 2) {
      node.status = PairStatus::kConfirmed;
      node.failed = true;
      node.implicating = tally[i].direct;
    } else if (intermittent(i)) {
      node.status = PairStatus::kIntermittent;
      node.failed = !tally[i].direct.empty();
      node.implicating = tally[i].direct;
      for (size_t k : node.ambiguous) {
        if (good_witness(obs[k].Partner(i), i)) node.implicating.push_back(k);
      }
      std::sort(node.implicating.begin(), node.implicating.end());
      // One failure, nothing run since: re-test once before calling it.
      if (!tally[i].direct.empty()) {
        const size_t strike = tally[i].direct.front();
        node.wants_test = std::none_of(tally[i].fine.begin(), tally[i].fine.end(),
                                       [&](size_t k) { return k > strike; });
      }
    } else {
      node.status = PairStatus::kHealthy;
      node.reliable = ambiguous_partners[i].empty();
    }
  }

  // Path candidates: capable pairs slow together, neither intermittent.
  std::map<std::pair<int, int>, PathCandidate> paths;
  for (int i = 0; i < n; ++i) {
    if (out.nodes[i].status != PairStatus::kHealthy) continue;
    for (int p : ambiguous_partners[i]) {
      if (p < i || out.nodes[p].status != PairStatus::kHealthy) continue;
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
    // result (one naming a single node made that node intermittent above).
    if (o.Fine()) it->second.fine.push_back(k);
    if (o.Slow() || o.outcome == Outcome::kHardwareFailure) it->second.slow.push_back(k);
  }
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
    out.paths.push_back(c);
  }
  return out;
}

}  // namespace eb::validation
