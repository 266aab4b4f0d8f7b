#pragma once

// Group testing over links (issue 31): which link of the fabric slows a
// pair test down, from pair results per rail, and which pairs to test next
// to tell the candidates apart. Pure; nodes are fleet indices, links are
// FabricIndex ids. The method and its limits: docs/VALIDATION.md "Blaming
// links".
//
// What it assumes:
//  * A fault is persistent and only slows things down: a test is as slow as
//    the slowest link its traffic crosses (paths.h says which links those
//    are under each Routing). So a fine result clears every link of its
//    path, and a slow result has at least one bad link among the links of
//    its path that nothing cleared (its candidates).
//  * A slow result with one candidate names that link bad; confirmed when
//    a second slow result of another pair crosses it too (the isolating
//    follow-up test is that second result).
//  * A slow result whose every link is cleared is not a link's fault: it is
//    the two flows together (a routing collision: both directions, or
//    another job's traffic, on one link at once). Re-tested once: slow
//    again, the pair is named as a routing collision; fine, not reproduced.
//  * A node-wide fault is every cable of the node bad: one follow-up test
//    isolates all of a node's cables at once (link_report.h turns that into
//    a node verdict, and one cable into a rail verdict). Flaky nodes and
//    dead agents are the node localizer's (pair_inference.h), not this.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/topology/paths.h"

namespace eb::topology {

// One rail of one pair test, graded (slow: below the rail's yardstick by
// more than the tolerance, as Observation::slow_rails has it).
struct LinkObservation {
  int a = 0, b = 0;  // fleet indices
  int rail = 0;
  int round = 0;
  bool slow = false;
  double ratio = 1;  // measured / expected, for "how much slower"
  int64_t test_id = 0;
};

enum class LinkState {
  kUntested,  // on no path tested yet
  kCleared,   // on the path of a fine result
  kSuspect,   // a candidate of a slow result nothing else explains
  kBad,       // the only candidate of a slow result
};

enum class CollisionState { kNeedsRetest, kConfirmed, kNotReproduced };

// A pair slow on a rail whose every link did well elsewhere.
struct Collision {
  int a = 0, b = 0, rail = 0;
  CollisionState state = CollisionState::kNeedsRetest;
  std::vector<size_t> slow, fine;  // observations of this pair on this rail
};

struct LinkAssessment {
  std::vector<LinkState> state;                // per link
  std::vector<bool> confirmed;                 // kBad with slow results of two pairs
  std::vector<std::vector<size_t>> slow_with;  // per link: slow observations crossing it
  std::vector<PathLinks> paths;                // per observation
  std::vector<std::vector<int>> candidates;    // per slow observation: links not cleared
  std::vector<size_t> open;                    // slow, unexplained, with candidates
  std::vector<Collision> collisions;
};

LinkAssessment AssessLinks(const FabricIndex& index, Routing routing,
                           const std::vector<LinkObservation>& observations);

struct LinkPlannedPair {
  int a = 0, b = 0;
  std::string purpose;
};

struct LinkPlan {
  std::vector<LinkPlannedPair> pairs;
  // Candidates no pair of this fleet can tell apart: every link of the set
  // is crossed by no pair without another link of the set (two leaves of a
  // rail: each cross-leaf pair crosses both leaves' links to one spine).
  std::vector<std::vector<int>> inseparable;
};

// Round 1: every node once, crossing leaves where there are several, so
// that every leaf and (with kDestinationModK and at least as many nodes on
// a leaf as it has spines) every leaf-spine link carries traffic: nodes
// ordered by (leaf of rail 0, position on it), node i with node i + n/2.
// An odd count leaves the last node for round 2.
std::vector<LinkPlannedPair> PlanFirstLinkRound(const FabricIndex& index);

// The leaf-spine links that none of `pairs` crosses on any rail.
std::vector<int> UnloadedUplinks(const FabricIndex& index, Routing routing,
                                 const std::vector<LinkPlannedPair>& pairs);

// A later round: for each link still to tell (a bad link not yet
// confirmed, then each candidate of an unexplained slow result, most
// shared first) a pair not tested before whose path on that link's rail
// has exactly that one link not cleared; each node in one pair a round,
// and one pair serves every target it isolates on any rail. Pairs named
// as collisions are re-tested; untested nodes meet a node whose cables
// are all cleared. Empty when nothing is left to test, or nothing can be.
LinkPlan PlanLinkRound(const FabricIndex& index, Routing routing,
                       const std::vector<LinkObservation>& observations,
                       const LinkAssessment& assessment);

}  // namespace eb::topology
