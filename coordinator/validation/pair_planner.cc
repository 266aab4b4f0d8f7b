#include "coordinator/validation/pair_planner.h"

#include <algorithm>

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
                               std::vector<int>& partner_uses) {
  const int n = static_cast<int>(assessment.nodes.size());
  AdaptivePlan plan;
  std::vector<bool> busy(n, false);

  for (const PathCandidate& c : assessment.paths) {
    if (c.state != PathState::kNeedsRetest || busy[c.a] || busy[c.b]) continue;
    busy[c.a] = busy[c.b] = true;
    plan.pairs.push_back({{c.a, c.b},
                          absl::StrCat("re-test of the slow pair ", names[c.a], "-", names[c.b],
                                       " (both did well with others)")});
  }

  std::vector<int> needy;
  std::vector<int> pool;
  for (int i = 0; i < n; ++i) {
    const PairNode& node = assessment.nodes[i];
    if (node.wants_test && !busy[i]) needy.push_back(i);
    if (node.reliable && !busy[i]) pool.push_back(i);
  }
  std::stable_sort(needy.begin(), needy.end(), [&](int a, int b) {
    return Priority(assessment.nodes[a].status) < Priority(assessment.nodes[b].status);
  });
  std::stable_sort(pool.begin(), pool.end(), [&](int a, int b) {
    if (partner_uses[a] != partner_uses[b]) return partner_uses[a] < partner_uses[b];
    return assessment.nodes[a].fine.size() > assessment.nodes[b].fine.size();
  });
  const bool any_reliable =
      !pool.empty() || std::any_of(assessment.nodes.begin(), assessment.nodes.end(),
                                   [](const PairNode& p) { return p.reliable; });

  std::vector<int> left;
  size_t first_free = 0;  // pool[0..first_free) are all busy
  for (int x : needy) {
    bool placed = false;
    for (size_t j = first_free; j < pool.size(); ++j) {
      const int p = pool[j];
      if (busy[p] || met.count(Ordered(x, p)) != 0) continue;
      busy[x] = busy[p] = true;
      ++partner_uses[p];
      plan.pairs.push_back(
          {{x, p}, absl::StrCat(names[x], " against ", names[p], ", which did well")});
      placed = true;
      break;
    }
    while (first_free < pool.size() && busy[pool[first_free]]) ++first_free;
    if (!placed) left.push_back(x);
  }
  if (left.empty()) return plan;

  if (any_reliable) {
    // Trusted partners exist: those not placed wait for the next round,
    // unless they have met every reliable node already.
    for (int x : left) {
      bool possible = false;
      for (int p = 0; p < n && !possible; ++p) {
        possible = p != x && assessment.nodes[p].reliable && met.count(Ordered(x, p)) == 0;
      }
      plan.needs_unmet = plan.needs_unmet || !possible;
    }
    return plan;
  }
  // Nobody did well yet: pair the nodes that want a test among themselves,
  // in combinations not tried yet.
  plan.without_trusted = true;
  for (size_t i = 0; i < left.size(); ++i) {
    const int x = left[i];
    if (busy[x]) continue;
    for (size_t j = i + 1; j < left.size(); ++j) {
      const int y = left[j];
      if (busy[y] || met.count(Ordered(x, y)) != 0) continue;
      busy[x] = busy[y] = true;
      plan.pairs.push_back({{x, y},
                            absl::StrCat(names[x], " against ", names[y],
                                         " (no node has done well yet: a new combination)")});
      break;
    }
  }
  for (int x : left) plan.needs_unmet = plan.needs_unmet || !busy[x];
  return plan;
}

}  // namespace eb::validation
