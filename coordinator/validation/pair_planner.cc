#include "coordinator/validation/pair_planner.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"

namespace eb::validation {
namespace {

NodePair Ordered(int a, int b) { return {std::min(a, b), std::max(a, b)}; }

int Priority(PairStatus status) {
  switch (status) {
    case PairStatus::kSuspect:
      return 0;
    case PairStatus::kIntermittent:
      return 1;
    case PairStatus::kUnresolved:
      return 2;
    default:
      return 3;  // untested
  }
}

// A round being planned: its pairs so far, and the nodes they occupy (a node
// cannot be in two tests of one round).
struct DraftRound {
  AdaptivePlan plan;
  std::vector<bool> busy;

  void Add(int a, int b, std::string purpose) {
    busy[a] = busy[b] = true;
    plan.pairs.push_back({{a, b}, std::move(purpose)});
  }
};

// Step 3 of the method: two nodes that each did well elsewhere but were
// slow together are re-tested together, before anyone else is placed.
void RetestPathCandidates(const PairAssessment& assessment, const std::vector<std::string>& names,
                          DraftRound& draft) {
  for (const PathCandidate& c : assessment.paths) {
    if (c.state != PathState::kNeedsRetest || draft.busy[c.a] || draft.busy[c.b]) continue;
    draft.Add(c.a, c.b,
              absl::StrCat("re-test of the slow pair ", names[c.a], "-", names[c.b],
                           " (both did well with others)"));
  }
}

// The free nodes that want a test: suspects first, then intermittent,
// unresolved and untested nodes.
std::vector<int> NodesWantingTest(const PairAssessment& assessment, const DraftRound& draft) {
  std::vector<int> needy;
  for (int i = 0; i < static_cast<int>(assessment.nodes.size()); ++i) {
    if (assessment.nodes[i].wants_test && !draft.busy[i]) needy.push_back(i);
  }
  std::stable_sort(needy.begin(), needy.end(), [&](int a, int b) {
    return Priority(assessment.nodes[a].status) < Priority(assessment.nodes[b].status);
  });
  return needy;
}

// The free trusted partners (reliable nodes): the least used first, then
// those with more fine results.
std::vector<int> TrustedPartners(const PairAssessment& assessment, const DraftRound& draft,
                                 const std::vector<int>& partner_uses) {
  std::vector<int> pool;
  for (int i = 0; i < static_cast<int>(assessment.nodes.size()); ++i) {
    if (assessment.nodes[i].reliable && !draft.busy[i]) pool.push_back(i);
  }
  std::stable_sort(pool.begin(), pool.end(), [&](int a, int b) {
    if (partner_uses[a] != partner_uses[b]) return partner_uses[a] < partner_uses[b];
    return assessment.nodes[a].fine.size() > assessment.nodes[b].fine.size();
  });
  return pool;
}

// Step 2 of the method: each node that wants a test gets the first free
// trusted partner it has not met. Returns the nodes left without one.
std::vector<int> PairWithTrustedPartners(const std::vector<int>& needy,
                                         const std::vector<int>& pool,
                                         const std::set<NodePair>& met,
                                         const std::vector<std::string>& names,
                                         std::vector<int>& partner_uses, DraftRound& draft) {
  std::vector<int> left;
  size_t first_free = 0;  // pool[0..first_free) are all busy
  for (int x : needy) {
    bool placed = false;
    for (size_t j = first_free; j < pool.size(); ++j) {
      const int p = pool[j];
      if (draft.busy[p] || met.count(Ordered(x, p)) != 0) continue;
      ++partner_uses[p];
      draft.Add(x, p, absl::StrCat(names[x], " against ", names[p], ", which did well"));
      placed = true;
      break;
    }
    while (first_free < pool.size() && draft.busy[pool[first_free]]) ++first_free;
    if (!placed) left.push_back(x);
  }
  return left;
}

// Whether `x` has met every reliable node already, so that waiting for a
// later round cannot give it a trusted partner.
bool MetEveryTrustedPartner(const PairAssessment& assessment, const std::set<NodePair>& met,
                            int x) {
  for (int p = 0; p < static_cast<int>(assessment.nodes.size()); ++p) {
    if (p != x && assessment.nodes[p].reliable && met.count(Ordered(x, p)) == 0) return false;
  }
  return true;
}

// No node has done well yet ("No node passes at all"): the nodes that want
// a test are paired among themselves, in combinations not tried yet.
void PairAmongThemselves(const std::vector<int>& left, const std::set<NodePair>& met,
                         const std::vector<std::string>& names, DraftRound& draft) {
  for (size_t i = 0; i < left.size(); ++i) {
    const int x = left[i];
    if (draft.busy[x]) continue;
    for (size_t j = i + 1; j < left.size(); ++j) {
      const int y = left[j];
      if (draft.busy[y] || met.count(Ordered(x, y)) != 0) continue;
      draft.Add(x, y,
                absl::StrCat(names[x], " against ", names[y],
                             " (no node has done well yet: a new combination)"));
      break;
    }
  }
}

}  // namespace

std::vector<NodePair> FirstRoundMatching(const std::vector<int>& nodes,
                                         const std::vector<std::string>& leaf_of_node) {
  std::vector<int> order = nodes;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return leaf_of_node[a] < leaf_of_node[b]; });
  const size_t half = order.size() / 2;
  std::vector<NodePair> pairs;
  for (size_t i = 0; i < half; ++i) pairs.emplace_back(order[i], order[i + half]);
  return pairs;
}

std::vector<NodePair> FirstRoundWithLeafReference(const std::vector<int>& nodes,
                                                  const std::vector<std::string>& leaf_of_node) {
  std::map<std::string, std::vector<int>> by_leaf;
  for (int node : nodes) by_leaf[leaf_of_node[node]].push_back(node);
  if (by_leaf.size() < 2 || by_leaf.count("") != 0) return FirstRoundMatching(nodes, leaf_of_node);
  std::vector<int> crossing;
  std::vector<NodePair> pairs;
  for (const auto& [leaf, on_leaf] : by_leaf) {
    size_t cross = std::max<size_t>(1, on_leaf.size() / 3);
    if ((on_leaf.size() - cross) % 2 == 1) ++cross;
    cross = std::min(cross, on_leaf.size());
    crossing.insert(crossing.end(), on_leaf.begin(), on_leaf.begin() + cross);
    for (size_t i = cross; i + 1 < on_leaf.size(); i += 2) {
      pairs.emplace_back(on_leaf[i], on_leaf[i + 1]);
    }
  }
  for (const NodePair& p : FirstRoundMatching(crossing, leaf_of_node)) pairs.push_back(p);
  return pairs;
}

std::vector<std::vector<NodePair>> RoundRobin(const std::vector<int>& nodes) {
  std::vector<int> ring = nodes;
  const bool odd = ring.size() % 2 == 1;
  if (odd) ring.push_back(-1);  // the bye
  const size_t n = ring.size();
  std::vector<std::vector<NodePair>> rounds;
  if (n < 2) return rounds;
  for (size_t r = 0; r + 1 < n; ++r) {
    std::vector<NodePair> round;
    for (size_t i = 0; i < n / 2; ++i) {
      const int a = ring[i];
      const int b = ring[n - 1 - i];
      if (a >= 0 && b >= 0) round.emplace_back(a, b);
    }
    rounds.push_back(std::move(round));
    std::rotate(ring.begin() + 1, ring.end() - 1, ring.end());  // keep ring[0] fixed
  }
  return rounds;
}

AdaptivePlan PlanAdaptiveRound(const PairAssessment& assessment, const std::set<NodePair>& met,
                               const std::vector<std::string>& names,
                               std::vector<int>& partner_uses, const std::vector<bool>& taken) {
  DraftRound draft;
  draft.busy.assign(assessment.nodes.size(), false);
  for (size_t i = 0; i < taken.size() && i < draft.busy.size(); ++i) draft.busy[i] = taken[i];
  RetestPathCandidates(assessment, names, draft);
  const std::vector<int> needy = NodesWantingTest(assessment, draft);
  const std::vector<int> pool = TrustedPartners(assessment, draft, partner_uses);
  const std::vector<int> left =
      PairWithTrustedPartners(needy, pool, met, names, partner_uses, draft);
  if (left.empty()) return draft.plan;

  const bool any_reliable = std::any_of(assessment.nodes.begin(), assessment.nodes.end(),
                                        [](const PairNode& p) { return p.reliable; });
  if (any_reliable) {
    // Trusted partners exist: those not placed wait for the next round,
    // unless they have met every reliable node already.
    for (int x : left) {
      draft.plan.needs_unmet = draft.plan.needs_unmet || MetEveryTrustedPartner(assessment, met, x);
    }
    return draft.plan;
  }
  draft.plan.without_trusted = true;
  PairAmongThemselves(left, met, names, draft);
  for (int x : left) draft.plan.needs_unmet = draft.plan.needs_unmet || !draft.busy[x];
  return draft.plan;
}

}  // namespace eb::validation
