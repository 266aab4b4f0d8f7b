#pragma once

// Which node pairs to test next. Pure; nodes are fleet indices.

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/validation/pair_inference.h"

namespace eb::validation {

using NodePair = std::pair<int, int>;

// Round 1 of the adaptive strategy: a perfect matching of `nodes`, all pairs
// at once. Nodes are ordered stably by leaf (when known) and node i is
// paired with node i + n/2, so that pairs cross leaves (and uplinks) when the
// leaves are balanced. With an odd count the last node is left for round 2,
// where it meets a node that already did well: a node cannot be in two
// tests of one round, so "paired twice" happens across the two rounds.
std::vector<NodePair> FirstRoundMatching(const std::vector<int>& nodes,
                                         const std::vector<std::string>& leaf_of_node);

// SuperBench's pair-wise schedule: a round-robin tournament (circle method)
// in which every pair meets once; n - 1 rounds for even n, n for odd n (one
// node sits out each round).
std::vector<std::vector<NodePair>> RoundRobin(const std::vector<int>& nodes);

struct PlannedPair {
  NodePair nodes;
  std::string purpose;
};

struct AdaptivePlan {
  std::vector<PlannedPair> pairs;
  // Some node still wants a test, but no partner it has not met is left.
  bool needs_unmet = false;
  // No node has done well in any pair test: nodes were paired among
  // themselves (new combinations) instead of with trusted partners.
  bool without_trusted = false;
};

// A later round of the adaptive strategy: path candidates are re-tested
// together; every node that wants a test gets a distinct trusted partner
// (a reliable node) it has not met, preferring partners used least, then
// nodes with more fine results; suspects first, then unresolved, then
// untested nodes. With no reliable node in the whole fleet, nodes that want
// a test are paired among themselves in combinations not tried yet.
// `met` holds every pair (a < b) that produced a result.
// `partner_uses[i]`: how often node i served as a trusted partner (updated).
AdaptivePlan PlanAdaptiveRound(const PairAssessment& assessment, const std::set<NodePair>& met,
                               const std::vector<std::string>& names,
                               std::vector<int>& partner_uses);

}  // namespace eb::validation
