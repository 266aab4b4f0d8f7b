#pragma once

// A simulated fleet for the validation core: an oracle answers each planned
// test's busbw from injected faults plus measurement noise, and a driver
// runs a Validation against it to the end. Deterministic for a given seed.
// Used by simulation_test (the proof in CI) and validation_sim (the table
// in docs/BENCHMARKS.md).
//
// The fleet: N nodes of 8 x H100 with 8 x 400G InfiniBand, the shipped
// baselines (46 GB/s per 400G NIC, 365 GB/s per 8 x 400G pair). A healthy
// rail measures level x 46 GB/s with level drawn per scenario from
// [0.97, 1.05] (fleets differ from the published figure a little either
// way), times (1 + common noise) per test and (1 + rail noise) per rail,
// both normal. A pair test's rail is as slow as the slowest thing on it:
// min over the two nodes' factors for that rail and the path's factor.

#include <cstdint>
#include <string>
#include <vector>

#include "coordinator/validation/validation.h"

namespace eb::validation::sim {

enum class FaultKind {
  kNode,   // a node at factor (0.3..0.8) of its bandwidth, every rail
  kMild,   // a node at factor (0.80..0.87): 13-20% slow
  kRail,   // one rail of a node at factor (0.3..0.7): rails are judged at
           // (1 - 2 tolerance), see grader.h
  kPath,   // the link between two nodes at factor (0.3..0.8); both fine otherwise
  kDead,   // an agent that dies after round 0, 1 or 2 (infra failure naming it)
  kFlaky,  // a node slow (factor 0.3..0.8) in each test with probability 1/2
  kMixed,  // k faults of kinds drawn from the six above
};
const char* FaultKindName(FaultKind kind);

struct Fault {
  FaultKind kind = FaultKind::kNode;
  int node = 0;
  int other = -1;  // kPath: the other end
  int rail = -1;   // kRail
  double factor = 1;
  int dies_after_round = 0;  // kDead
};

struct Scenario {
  int n = 16;
  FaultKind kind = FaultKind::kNode;
  std::vector<Fault> faults;
  Strategy strategy = Strategy::kAdaptive;
  bool with_expected = true;  // baselines given (H100), or none (A800-like)
  double level = 1.0;         // healthy rail = level x 46 GB/s
  double rail_noise = 0.02;   // sigma, relative
  double common_noise = 0.01;
  uint64_t seed = 1;
  // Soak repeats after the pairs (Options::soak): the driver lets this many
  // start, then says time is up (Validation::KeepSoaking(false)). 0: none.
  int soak_repeats = 0;
};

// k faults of `kind` on distinct nodes, seeded. A path fault is put on a
// pair that round 1 tests: a link between two nodes that are never tested
// together cannot be seen by any test plan but all-pairs (that is what
// all-pairs' N - 1 rounds buy). Fewer than k when the fleet is too small.
Scenario RandomScenario(int n, int k, FaultKind kind, uint64_t seed);
// The seed of scenario `index` of a table row.
uint64_t ScenarioSeed(int n, int k, FaultKind kind, int index);

std::vector<Node> SimFleet(int n);
Options SimOptions(const Scenario& scenario);

struct Run {
  ValidationReport report;
  int pair_rounds = 0;
  int pair_tests = 0;
  std::vector<int> dead_seen;  // kDead faults that struck (the node was tested after dying)
  std::string error;           // a Validation call failed (a bug)
};
// `trace`, when given, gets one line per test and result.
Run RunScenario(const Scenario& scenario, std::vector<std::string>* trace = nullptr);

// The scenario, its rounds and the verdicts, for a human.
std::string Describe(const Scenario& scenario, const Run& run);

// Whether a fault kind must always be found: a mild node (13-20% slow) is
// near the threshold, a flaky one may look fine in every test it gets.
bool Asserted(FaultKind kind);

struct KindScore {
  int faults = 0;
  int found = 0;      // named: the node degraded (with the rail for kRail), the path, untestable
  int confirmed = 0;  // found with two independent observations
  int explained = 0;  // not found, and the report says why it cannot be
};

// How the verdicts compare with the injected faults.
struct Score {
  std::vector<std::string> healthy_blamed;  // degraded/failed without a fault of their own
  std::vector<std::string> missed;          // an asserted fault neither found nor explained
  // Found, but with a wrong detail: a node-wide fault blamed on rails, a
  // rail fault with other rails too.
  std::vector<std::string> imprecise;
  KindScore by_kind[6];  // indexed by FaultKind (not kMixed)
};
Score ScoreRun(const Scenario& scenario, const Run& run);

// Sensitivity (issue 29 item 7): faults at a fixed, small size rather than
// drawn from a wide range, and healthy fleets, to measure a detection rate
// and a false-flag rate.
enum class SensitivityCase {
  kHealthy,  // no fault: every flag is false
  kRail10,   // one rail of one node at 0.90 (10% slow) in every test
  kFlaky20,  // one node at 0.80 (20% slow, every rail) in each test with probability 1/2
};
const char* SensitivityCaseName(SensitivityCase c);
// Fleet `index` (1-based) of a case at size n, seeded apart from the tables'.
Scenario SensitivityScenario(int n, SensitivityCase c, int index, int soak_repeats);

struct SensitivityScore {
  bool found = false;  // kRail10: the node degraded naming that rail; kFlaky20: the node
                       // degraded or failed, or a reported path containing it
  // Anything not healthy that is not the injected fault: a node without a
  // fault whose verdict is not healthy, a path with no faulty end, a rail
  // named on the faulty node other than the injected one.
  std::vector<std::string> false_flags;
};
SensitivityScore ScoreSensitivity(const Scenario& scenario, const Run& run);

}  // namespace eb::validation::sim
