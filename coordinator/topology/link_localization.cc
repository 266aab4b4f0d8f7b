#include "coordinator/topology/link_localization.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace eb::topology {
namespace {

using PairKey = std::pair<int, int>;

PairKey KeyOf(int a, int b) { return a < b ? PairKey{a, b} : PairKey{b, a}; }

// The links of `path` not in `cleared`.
std::vector<int> Uncleared(const PathLinks& path, const std::vector<bool>& cleared) {
  std::vector<int> out;
  for (int link : path.links) {
    if (!cleared[link]) out.push_back(link);
  }
  return out;
}

// The rails a link's traffic can be on.
std::vector<int> RailsOf(const FabricIndex& index, int link) {
  const Link& l = index.links()[link];
  if (l.kind == LinkKind::kCable) return {l.rail};
  std::vector<int> rails;
  for (int rail = 0; rail < index.rail_count(); ++rail) {
    if (!index.NodesOn(l.leaf, rail).empty()) rails.push_back(rail);
  }
  return rails;
}

class RoundPlanner {
 public:
  RoundPlanner(const FabricIndex& index, Routing routing,
               const std::vector<LinkObservation>& observations, const LinkAssessment& assessment)
      : index_(index),
        routing_(routing),
        busy_(index.node_count(), false),
        cleared_(index.links().size(), false) {
    for (size_t l = 0; l < assessment.state.size(); ++l) {
      cleared_[l] = assessment.state[l] == LinkState::kCleared;
    }
    for (const LinkObservation& o : observations) met_.insert(KeyOf(o.a, o.b));
    for (size_t k : assessment.open) open_.push_back(&assessment.candidates[k]);
  }

  bool Busy(int node) const { return busy_[node]; }

  void Take(int a, int b, std::string purpose, LinkPlan& plan) {
    busy_[a] = busy_[b] = true;
    met_.insert(KeyOf(a, b));
    plan.pairs.push_back({a, b, std::move(purpose)});
  }

  // Whether the pair's path on `rail` has `link` as its only link not cleared.
  bool Isolates(int x, int y, int rail, int link) const {
    const PathLinks path = index_.Path(x, y, rail, routing_);
    if (!path.reachable) return false;
    bool has = false;
    for (int l : path.links) {
      if (l == link) {
        has = true;
      } else if (!cleared_[l]) {
        return false;
      }
    }
    return has;
  }

  // A pair not met before that isolates `link`; with `free_only`, of nodes
  // not busy this round. {-1, -1} when none. With `split`, instead of
  // isolating it: a path with `link` and one other link not cleared, where
  // an unexplained slow result has `link` among more than two candidates
  // (fine clears `link` there; slow leaves a result of two): how a leaf
  // whose nodes were all slow in round 1 tells its cables apart.
  PairKey Find(int link, bool free_only, bool split = false) const {
    const Link& l = index_.links()[link];
    auto usable = [&](int node) { return !free_only || !busy_[node]; };
    for (int rail : RailsOf(index_, link)) {
      std::vector<int> near;
      if (l.kind == LinkKind::kCable) {
        near = {l.node};
      } else {
        near = index_.NodesOn(l.leaf, rail);
      }
      for (int x : near) {
        if (!usable(x)) continue;
        for (int y = 0; y < index_.node_count(); ++y) {
          if (y == x || !usable(y) || met_.count(KeyOf(x, y)) != 0) continue;
          if (split ? Splits(x, y, rail, link) : Isolates(x, y, rail, link)) return {x, y};
        }
      }
    }
    return {-1, -1};
  }

  bool Splits(int x, int y, int rail, int link) const {
    const PathLinks path = index_.Path(x, y, rail, routing_);
    if (!path.reachable) return false;
    const std::vector<int> rest = Uncleared(path, cleared_);
    if (rest.size() != 2 || !std::binary_search(rest.begin(), rest.end(), link)) return false;
    for (const std::vector<int>* candidates : open_) {
      if (candidates->size() > rest.size() &&
          std::binary_search(candidates->begin(), candidates->end(), link)) {
        return true;
      }
    }
    return false;
  }

  // Every target link the pair isolates on some rail.
  std::vector<int> Serves(int x, int y, const std::set<int>& targets) const {
    std::vector<int> out;
    for (int rail = 0; rail < index_.rail_count(); ++rail) {
      const PathLinks path = index_.Path(x, y, rail, routing_);
      if (!path.reachable) continue;
      const std::vector<int> rest = Uncleared(path, cleared_);
      if (rest.size() == 1 && targets.count(rest[0]) != 0) out.push_back(rest[0]);
    }
    return out;
  }

  bool AllCablesCleared(int node) const {
    for (int rail = 0; rail < index_.rail_count(); ++rail) {
      const int cable = index_.CableOf(node, rail);
      if (cable >= 0 && !cleared_[cable]) return false;
    }
    return true;
  }

 private:
  const FabricIndex& index_;
  Routing routing_;
  std::vector<bool> busy_;
  std::vector<bool> cleared_;
  std::set<PairKey> met_;
  std::vector<const std::vector<int>*> open_;  // candidates of unexplained slow results
};

// Nodes never tested (an odd fleet's last one) meet a node all of whose
// cables are cleared.
void PairUntestedNodes(const FabricIndex& index, const std::vector<LinkObservation>& observations,
                       RoundPlanner& planner, LinkPlan& plan) {
  std::vector<bool> tested(index.node_count(), false);
  for (const LinkObservation& o : observations) {
    for (int node : {o.a, o.b}) {
      if (node >= 0 && node < index.node_count()) tested[node] = true;
    }
  }
  for (int node = 0; node < index.node_count(); ++node) {
    if (tested[node] || planner.Busy(node)) continue;
    for (int partner = 0; partner < index.node_count(); ++partner) {
      if (partner == node || planner.Busy(partner) || !planner.AllCablesCleared(partner)) continue;
      planner.Take(node, partner, "untested: with a node whose cables did well", plan);
      break;
    }
  }
}

}  // namespace

LinkAssessment AssessLinks(const FabricIndex& index, Routing routing,
                           const std::vector<LinkObservation>& observations) {
  const size_t link_count = index.links().size();
  LinkAssessment out;
  out.state.assign(link_count, LinkState::kUntested);
  out.confirmed.assign(link_count, false);
  out.slow_with.assign(link_count, {});
  out.candidates.assign(observations.size(), {});
  std::vector<bool> cleared(link_count, false), on_path(link_count, false);
  for (const LinkObservation& o : observations) {
    out.paths.push_back(index.Path(o.a, o.b, o.rail, routing));
  }
  for (size_t k = 0; k < observations.size(); ++k) {
    for (int link : out.paths[k].links) {
      on_path[link] = true;
      if (!observations[k].slow) cleared[link] = true;
    }
  }
  std::vector<bool> bad(link_count, false);
  for (size_t k = 0; k < observations.size(); ++k) {
    if (!observations[k].slow || !out.paths[k].reachable) continue;
    for (int link : out.paths[k].links) out.slow_with[link].push_back(k);
    out.candidates[k] = Uncleared(out.paths[k], cleared);
    if (out.candidates[k].size() == 1) bad[out.candidates[k][0]] = true;
  }
  std::map<std::tuple<int, int, int>, Collision> collisions;
  for (size_t k = 0; k < observations.size(); ++k) {
    const LinkObservation& o = observations[k];
    if (!o.slow || !out.paths[k].reachable) continue;
    const std::vector<int>& candidates = out.candidates[k];
    if (candidates.empty()) {
      const PairKey key = KeyOf(o.a, o.b);
      Collision& c = collisions[{key.first, key.second, o.rail}];
      c.a = key.first;
      c.b = key.second;
      c.rail = o.rail;
      c.slow.push_back(k);
      continue;
    }
    const bool explained =
        std::any_of(candidates.begin(), candidates.end(), [&](int link) { return bad[link]; });
    if (!explained) out.open.push_back(k);
  }
  for (auto& [key, c] : collisions) {
    for (size_t k = 0; k < observations.size(); ++k) {
      const LinkObservation& o = observations[k];
      if (!o.slow && o.rail == c.rail && KeyOf(o.a, o.b) == PairKey{c.a, c.b}) c.fine.push_back(k);
    }
    c.state = !c.fine.empty()     ? CollisionState::kNotReproduced
              : c.slow.size() > 1 ? CollisionState::kConfirmed
                                  : CollisionState::kNeedsRetest;
    out.collisions.push_back(c);
  }
  std::vector<bool> suspect(link_count, false);
  for (size_t k : out.open) {
    for (int link : out.candidates[k]) suspect[link] = true;
  }
  for (size_t l = 0; l < link_count; ++l) {
    if (bad[l]) {
      out.state[l] = LinkState::kBad;
      std::set<PairKey> pairs;
      for (size_t k : out.slow_with[l]) pairs.insert(KeyOf(observations[k].a, observations[k].b));
      out.confirmed[l] = pairs.size() >= 2;
    } else if (cleared[l]) {
      out.state[l] = LinkState::kCleared;
    } else if (suspect[l]) {
      out.state[l] = LinkState::kSuspect;
    } else if (on_path[l]) {
      // Only on slow paths that a bad link explains: not a candidate now.
      out.state[l] = LinkState::kUntested;
    }
  }
  return out;
}

std::vector<LinkPlannedPair> PlanFirstLinkRound(const FabricIndex& index) {
  std::vector<std::tuple<int, int, int, int>> order;  // (no cable, leaf name order, rank, node)
  std::vector<int> leaves = index.LeavesOf(0);
  std::sort(leaves.begin(), leaves.end(),
            [&](int a, int b) { return index.SwitchName(a) < index.SwitchName(b); });
  std::map<int, int> leaf_order;
  for (size_t i = 0; i < leaves.size(); ++i) leaf_order[leaves[i]] = static_cast<int>(i);
  std::map<int, int> rank;
  for (int leaf : leaves) {
    const std::vector<int>& on = index.NodesOn(leaf, 0);
    for (size_t i = 0; i < on.size(); ++i) rank[on[i]] = static_cast<int>(i);
  }
  for (int node = 0; node < index.node_count(); ++node) {
    const int leaf = index.LeafOf(node, 0);
    if (leaf < 0) {
      order.emplace_back(1, 0, 0, node);
    } else {
      order.emplace_back(0, leaf_order[leaf], rank[node], node);
    }
  }
  std::sort(order.begin(), order.end());
  const size_t half = order.size() / 2;
  std::vector<LinkPlannedPair> pairs;
  for (size_t i = 0; i < half; ++i) {
    pairs.push_back(
        {std::get<3>(order[i]), std::get<3>(order[i + half]), "round 1: every leaf and uplink"});
  }
  return pairs;
}

std::vector<int> UnloadedUplinks(const FabricIndex& index, Routing routing,
                                 const std::vector<LinkPlannedPair>& pairs) {
  std::vector<bool> loaded(index.links().size(), false);
  for (const LinkPlannedPair& pair : pairs) {
    for (int rail = 0; rail < index.rail_count(); ++rail) {
      for (int link : index.Path(pair.a, pair.b, rail, routing).links) loaded[link] = true;
    }
  }
  std::vector<int> out;
  for (size_t l = 0; l < loaded.size(); ++l) {
    if (!loaded[l] && index.links()[l].kind == LinkKind::kUplink)
      out.push_back(static_cast<int>(l));
  }
  return out;
}

LinkPlan PlanLinkRound(const FabricIndex& index, Routing routing,
                       const std::vector<LinkObservation>& observations,
                       const LinkAssessment& assessment) {
  LinkPlan plan;
  RoundPlanner planner(index, routing, observations, assessment);
  // Collisions to re-test: the same pair again.
  for (const Collision& c : assessment.collisions) {
    if (c.state != CollisionState::kNeedsRetest || planner.Busy(c.a) || planner.Busy(c.b)) continue;
    plan.pairs.push_back({c.a, c.b, "re-test: slow with every link cleared (routing collision?)"});
    // Take() would record the pair as met; a re-test meets it again on purpose.
  }
  for (const LinkPlannedPair& pair : plan.pairs) {
    // Marks both busy (the pair is already in the plan).
    LinkPlan ignored;
    planner.Take(pair.a, pair.b, "", ignored);
  }
  // Targets: bad links still to confirm, then candidates by how many
  // unexplained slow results they are in.
  std::vector<int> targets;
  std::set<int> target_set;
  for (size_t l = 0; l < assessment.state.size(); ++l) {
    if (assessment.state[l] == LinkState::kBad && !assessment.confirmed[l]) {
      targets.push_back(static_cast<int>(l));
    }
  }
  std::map<int, int> shared;
  for (size_t k : assessment.open) {
    for (int link : assessment.candidates[k]) ++shared[link];
  }
  std::vector<std::pair<int, int>> by_share;
  by_share.reserve(shared.size());
  for (const auto& [link, count] : shared) by_share.emplace_back(-count, link);
  std::sort(by_share.begin(), by_share.end());
  for (const auto& [count, link] : by_share) targets.push_back(link);
  target_set.insert(targets.begin(), targets.end());

  std::set<int> covered, inseparable;
  for (int link : targets) {
    if (covered.count(link) != 0) continue;
    PairKey pair = planner.Find(link, /*free_only=*/true);
    const bool split = pair.first < 0;
    if (split) pair = planner.Find(link, /*free_only=*/true, /*split=*/true);
    if (pair.first < 0) {
      if (planner.Find(link, /*free_only=*/false).first < 0 &&
          planner.Find(link, /*free_only=*/false, /*split=*/true).first < 0) {
        inseparable.insert(link);
      }
      continue;  // else: the nodes it needs are busy; next round
    }
    for (int served : planner.Serves(pair.first, pair.second, target_set)) covered.insert(served);
    planner.Take(
        pair.first, pair.second,
        absl::StrCat(split ? "halve the candidates with " : "isolate ", index.Describe(link)),
        plan);
  }
  // Slow results whose every candidate no pair can isolate.
  std::set<std::vector<int>> groups;
  for (size_t k : assessment.open) {
    const std::vector<int>& candidates = assessment.candidates[k];
    if (std::all_of(candidates.begin(), candidates.end(),
                    [&](int link) { return inseparable.count(link) != 0; })) {
      groups.insert(candidates);
    }
  }
  plan.inseparable.assign(groups.begin(), groups.end());
  PairUntestedNodes(index, observations, planner, plan);
  return plan;
}

}  // namespace eb::topology
