#pragma once

// A scripted fleet for table-driven validation tests: every test's outcome
// follows from the script (bad nodes, rails, paths, dead agents, wrong data)
// with a small deterministic wobble instead of random noise, and a driver
// that runs a Validation to the end, keeping every round.

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/validation/validation.h"

namespace eb::validation::test {

struct Script {
  double rail_gbps = 46.5;              // a healthy rail (the shipped figure is 46)
  double intra_gbps = 380;              // a healthy node alone (the shipped figure is 370)
  std::map<std::string, double> node;   // every rail of the node, and intra
  std::map<std::string, double> intra;  // intra only (GPUs)
  std::map<std::string, double> nic;    // every rail, pairs only (NICs)
  std::map<std::pair<std::string, int>, double> rail;  // (node, rail)
  std::map<std::set<std::string>, double> path;        // between two nodes
  std::set<std::set<std::string>> path_once;           // slow the first time only (noise)
  std::map<std::string, double> intra_once;            // slow in the first intra test only
  std::map<std::string, int> dies_in_round;            // infra failure naming it from then on
  std::map<std::string, int> unnamed_infra;            // infra failures naming nobody
  std::set<std::string> wrong_data;                    // hardware failure attributed to it
  // No progress (issue 29): nothing moved between the two nodes, or with the
  // node in any test with another: a hardware failure naming every node of
  // the test, as ResultFromReport makes of FAILURE_KIND_NO_PROGRESS.
  std::set<std::set<std::string>> stuck_path;
  std::set<std::string> stuck_node;
  bool fleet_stuck = false;  // the fleet test carries nothing
  double fleet = 1;          // factor of the fleet test
  // The size a test of the user's sweep measured at, as ResultFromReport
  // reads it off the last row (0: the core's planned size stands).
  int64_t graded_bytes = 0;
  // Soak (Options::soak): repeats the runner allows (KeepSoaking), and
  // nodes whose pair tests run at half speed from a repeat (1-based) on, in
  // that repeat and every test after it (a link that turns bad mid-soak).
  int soak_repeats = 0;
  std::map<std::string, int> slow_from_soak_repeat;
  // The fabric's factor on one rail of a pair test (issue 31: a slow link
  // on the pair's path); null: 1.
  std::function<double(const std::string& a, const std::string& b, int rail)> fabric;
  int rails = 8;  // rails of every node (1: one NIC, a pair test's whole result is its rail 0)
};

class ScriptedFleet {
 public:
  explicit ScriptedFleet(Script script) : script_(std::move(script)) {}
  TestResult Answer(const Round& round, const PlannedTest& test);

 private:
  TestResult Measure(const Round& round, const PlannedTest& test);
  Script script_;
  std::set<std::set<std::string>> seen_pairs_;
  std::set<std::string> seen_intra_;
  std::set<std::string> turned_slow_;  // slow_from_soak_repeat reached
};

struct Outcome {
  std::vector<Round> rounds;
  ValidationReport report;
  std::string error;  // a Validation call failed
};

Outcome RunToEnd(std::vector<Node> nodes, Options options, Script script);

// The rounds of one suite.
std::vector<Round> RoundsOf(const Outcome& outcome, TestKind kind);

}  // namespace eb::validation::test
