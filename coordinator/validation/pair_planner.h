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

// Round 1 of the adaptive strategy over a known fabric when the pair tests
// have no expected figure (the fleet median judges them: Gloo hosts
// without a site [[gloo_pairs]] figure, or hardware without a baseline). FirstRoundMatching's
// cross-leaf pairs would all cross the uplinks, and an uplink slow for every one of them (two
// leaves under one spine) would set the median: nothing would look slow.
// Here most nodes of each leaf pair on their own leaf instead, the
// reference no uplink can slow, and a share crosses leaves: about a third
// of each leaf, at least one node (two when the leaf's own pairs would
// leave one over), matched across leaves as FirstRoundMatching does. A
// leaf's nodes keep their order in `nodes`; the first ones cross. An odd
// crossing count leaves its last node for round 2. Without two leaves it
// is FirstRoundMatching.
std::vector<NodePair> FirstRoundWithLeafReference(const std::vector<int>& nodes,
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
// `taken[i]` (empty: none): node i is in another test of this round already
// (a link round's, validation.cc) and is neither tested nor a partner.
AdaptivePlan PlanAdaptiveRound(const PairAssessment& assessment, const std::set<NodePair>& met,
                               const std::vector<std::string>& names,
                               std::vector<int>& partner_uses, const std::vector<bool>& taken = {});

}  // namespace eb::validation
