#pragma once

// What a validation concludes: one verdict per node with its evidence, bad
// paths (node pairs), bad rails, fleet-wide findings, and the rounds it
// took. The runner turns this into the table, the JSON and the exit code
// (7 when AnyBad()).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/validation/plan.h"
#include "coordinator/validation/yardstick.h"

namespace eb::validation {

enum class Verdict {
  kHealthy,     // did well in every suite it ran
  kDegraded,    // slow: below its threshold
  kFailed,      // wrong data, NCCL error attributed to it
  kUnfit,       // preflight: differs from the fleet's majority
  kUntestable,  // infrastructure (agent lost, tests could not run), or no
                // partner could judge it: never a hardware verdict
};
const char* VerdictName(Verdict verdict);

// confirmed: two independent observations agree (three when the first two
// were borderline); suspect: one, said as such.
enum class Confidence { kConfirmed, kSuspect };
const char* ConfidenceName(Confidence confidence);

struct Evidence {
  int64_t test_id = 0;  // 0: not a test (preflight)
  int round = 0;
  TestKind kind = TestKind::kIntra;
  std::vector<std::string> partners;  // the other nodes of the test
  std::optional<int> rail;            // set when a rail's result is the evidence
  Outcome outcome = Outcome::kCompleted;
  double measured_gbps = 0;
  double threshold_gbps = 0;  // slow below this; 0 = not judged
  std::optional<double> expected_gbps;
  std::optional<double> fleet_median_gbps;
  Grade grade = Grade::kUnjudged;
  // One line: "round 2, pair with c (trusted): 182 GB/s < threshold 328.5
  // GB/s = 0.9 x min(expected 365, fleet median 371 over 231 nodes)".
  std::string text;
};

struct NodeVerdict {
  std::string node;
  Verdict verdict = Verdict::kHealthy;
  Confidence confidence = Confidence::kConfirmed;
  std::string reason;          // one line
  std::vector<int> bad_rails;  // rails slow in every observation that blames it
  // A pair test judged its network (a fine result, or the evidence that
  // blames it). False when pairs did not run or could not judge it.
  bool network_judged = false;
  std::vector<Evidence> evidence;
};

// Both nodes did well with other partners, and were slow together twice.
struct PathVerdict {
  std::string a, b;
  Verdict verdict = Verdict::kDegraded;
  Confidence confidence = Confidence::kSuspect;
  std::string reason;
  std::vector<int> rails;  // rails slow in both observations (empty: all)
  std::vector<Evidence> evidence;
};

struct RailVerdict {
  std::string node;
  int rail = 0;
  Verdict verdict = Verdict::kDegraded;
  Confidence confidence = Confidence::kSuspect;
  std::string reason;
};

enum class FindingKind {
  kNoTrustedNode,       // no node passed a pair test: pairs cannot localize
  kFleetBelowExpected,  // the fleet median is below its expected figure
  kNotJudged,           // no expected figure and too few nodes for a median
  kMedianOnly,          // no expected figure: verdicts rest on the fleet median
  kFleetTestSlow,       // the fleet suite's test is slow: congestion at scale
  kFleetTestFailed,     // the fleet suite's test failed or could not run
  kRoundLimit,          // max_pair_rounds reached with evidence still short
  kTooFewNodes,         // fewer than 2 testable nodes for pairs or fleet
};
const char* FindingKindName(FindingKind kind);

struct Finding {
  FindingKind kind = FindingKind::kNotJudged;
  bool bad = false;  // counts toward exit 7
  std::string text;
};

struct RoundSummary {
  int number = 0;
  TestKind kind = TestKind::kIntra;
  int suite_round = 0;
  int tests = 0;
};

struct ValidationReport {
  bool done = false;
  std::vector<NodeVerdict> nodes;  // input order
  std::vector<PathVerdict> paths;
  std::vector<RailVerdict> rails;
  std::vector<Finding> findings;
  std::vector<RoundSummary> rounds;
  int intra_rounds = 0, intra_tests = 0;
  int pair_rounds = 0, pair_tests = 0;
  int fleet_tests = 0;

  // Exit 7: any node, path or rail degraded or failed, or a bad finding.
  bool AnyBad() const;
  const NodeVerdict* Find(const std::string& node) const;
};

}  // namespace eb::validation
