#pragma once

// What the pair tests so far say about each node and each node pair. Pure:
// recomputed from every observation after each round, so that a verdict
// never rests on what a node looked like at one moment.
//
// The rules (docs/VALIDATION.md "How pairs find the bad node"):
//  * A node is capable once it did well in a pair test: a bad node cannot
//    (faults only slow things down), so one fine result clears it.
//  * A slow or failed test implicates a node when its partner is a good
//    witness: capable, and not itself slow with any other capable node. A
//    hardware failure attributed to this node alone implicates it outright.
//  * A node that never did well is confirmed bad with two implicating
//    observations with distinct partners (the second is the re-test before
//    blaming) that agree on how slow it is, within the tolerance; three
//    when they disagree (two flaky partners look like one bad node, but
//    rarely by the same amount); suspect with one; unresolved while all its
//    slow partners are themselves unproven.
//  * Bad rails: the rails slow in every observation that blames the node,
//    when at least one of them had a minority of its rails clearly slow and
//    every other rail fine.
//  * A capable node slow with two or more distinct good witnesses is
//    intermittent (degraded, suspect): it did well with some, badly with
//    others. A capable node with one failure attributed to it is too.
//  * A capable node with a rail below its tests' median rail in every test
//    (all partners but the worst, three or more), by more than the fleet's
//    measured rail noise can explain at a false-rail rate of 1 in 1,000
//    fleets, and by half the tolerance at least: degraded (confirmed), with
//    that rail. A rail 10% slow stays above the per-test rail threshold
//    (1 - 2 tol) and hardly moves the aggregate; only its drift shows it.
//  * Two capable nodes, neither intermittent, slow together: a path
//    candidate. Re-tested once; slow again is a bad path (confirmed), fine
//    means the first result is not reproduced and nobody is blamed.

#include <cstddef>
#include <string>
#include <vector>

#include "coordinator/validation/observation.h"

namespace eb::validation {

enum class PairStatus {
  kOut,           // not part of the pair suite
  kLost,          // untestable: agent lost, or two unattributed infra failures
  kUntested,      // no result yet
  kUnresolved,    // slow only with unproven partners
  kSuspect,       // one implicating observation
  kConfirmed,     // degraded or failed, confirmed
  kHealthy,       // did well; nothing unexplained
  kIntermittent,  // did well, and also badly with >= 2 good partners (or failed once)
};

struct PairNode {
  PairStatus status = PairStatus::kOut;
  bool failed = false;      // the implicating evidence includes a hardware failure
  bool reliable = false;    // may serve as a trusted partner
  bool wants_test = false;  // needs a test with a trusted partner it has not met
  int infra_strikes = 0;
  std::vector<size_t> fine;         // observation indices
  std::vector<size_t> implicating;  // slow/failed with a good witness, or attributed
  std::vector<size_t> ambiguous;    // slow with capable partners (capable nodes)
  std::vector<int> bad_rails;       // slow in every implicating observation
  // Confirmed by its rails' drift (a capable node: see below): the figures.
  std::string rail_drift;
};

enum class PathState { kNeedsRetest, kConfirmed, kSuspect, kNotReproduced };

struct PathCandidate {
  int a = 0, b = 0;  // a < b
  PathState state = PathState::kNeedsRetest;
  std::vector<size_t> slow, fine;  // observations of this pair
  std::vector<int> rails;          // slow in every slow observation
};

struct PairAssessment {
  std::vector<PairNode> nodes;  // one per fleet node
  std::vector<PathCandidate> paths;
  bool any_capable = false;
};

// `in_pairs[i]`: node i takes part in the pair suite; `lost[i]`: it is
// untestable. `retests` is false for all-pairs (a single slow pair stays a
// suspect path).
PairAssessment AssessPairs(const std::vector<Observation>& observations,
                           const std::vector<bool>& in_pairs, const std::vector<bool>& lost,
                           bool retests);

}  // namespace eb::validation
