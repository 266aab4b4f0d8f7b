#pragma once

// One simulated fat-tree fleet (fabric_sim.h) through the whole validation
// (issue 31): Validation itself (intra, the node localizer's pair rounds,
// link rounds, the report's links/rails/paths/nodes) answered by the
// scripted fleet, run again without its link faults, and scored against the
// issue's targets. One definition for the two that use it:
// validation_sim --fabric-validation prints the table of docs/BENCHMARKS.md
// from it (fabric_validation_table.cc) and fabric_validation_sim_test
// asserts its 256- and 1,024-node rows in CI.

#include <string>
#include <vector>

#include "tests/unit/validation/fabric_sim.h"
#include "tests/unit/validation/scripted_fleet.h"

namespace eb::validation::sim {

struct FabricValidationScore {
  int uplinks = 0;     // faulty uplinks
  int exact = 0;       // named as one link, nothing said inseparable from it
  int within_two = 0;  // named with the one other link no pair can tell apart from it
  int others = 0;      // cable, collision, bad node, bad rail faults
  int others_found = 0;
  int blamed = 0;  // node or rail verdicts on a node without a fault
  int wrong = 0;   // links named that hold no fault
};

struct FabricValidationFleet {
  test::Outcome outcome;  // the fleet with its faults
  int rounds = 0;         // every round of the validation
  int extra_rounds = 0;   // rounds more than the same fleet without its link faults
  FabricValidationScore score;
  std::string error;   // a Validation call failed, in the fleet or its baseline
  double seconds = 0;  // wall time of the fleet's run (not its baseline)
};

// With `noisy`, each rail of each pair test is also multiplied by the
// scenario's normal noise (fabric_sim.h: 1 % a test, 2 % a rail, sigma).
test::Outcome RunFabricThroughValidation(const FabricScenario& s, bool noisy);
FabricValidationScore ScoreFabricValidation(const FabricScenario& s, const test::Outcome& out);
// Runs the fleet and WithoutLinkFaults(s), and scores the first.
FabricValidationFleet RunFabricValidationFleet(const FabricScenario& s, bool noisy);

// The targets this fleet misses, one line each (empty: all met):
// every faulty uplink named exactly or within 2 said so, every other fault
// found, no healthy node blamed, no healthy link named, at most
// kMaxExtraRounds rounds more than without the link faults, no error.
inline constexpr int kMaxExtraRounds = 2;
std::vector<std::string> FabricValidationMisses(const FabricValidationFleet& fleet);

// The fleet's shape, rounds and link verdicts, one line each: what
// --show prints and what a failing test shows.
std::string TraceFabricValidation(const FabricScenario& s, const test::Outcome& out);

}  // namespace eb::validation::sim
