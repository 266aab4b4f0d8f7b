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

// Defined as their wire values, as plan.h's enums are.
enum class Verdict {
  kHealthy = ebnccl::v1::VERDICT_HEALTHY,    // did well in every suite it ran
  kDegraded = ebnccl::v1::VERDICT_DEGRADED,  // slow: below its threshold
  kFailed = ebnccl::v1::VERDICT_FAILED,      // wrong data, NCCL error attributed to it
  kUnfit = ebnccl::v1::VERDICT_UNFIT,        // preflight: differs from the fleet's majority
  // Infrastructure (agent lost, tests could not run), or no partner could
  // judge it: never a hardware verdict.
  kUntestable = ebnccl::v1::VERDICT_UNTESTABLE,
};
static_assert(static_cast<int>(Verdict::kUntestable) == ebnccl::v1::Verdict_MAX);
constexpr ebnccl::v1::Verdict ToWire(Verdict verdict) {
  return static_cast<ebnccl::v1::Verdict>(verdict);
}
std::string VerdictName(Verdict verdict);

// confirmed: two independent observations agree (three when the first two
// were borderline); suspect: one, said as such.
enum class Confidence {
  kConfirmed = ebnccl::v1::CONFIDENCE_CONFIRMED,
  kSuspect = ebnccl::v1::CONFIDENCE_SUSPECT,
};
static_assert(static_cast<int>(Confidence::kSuspect) == ebnccl::v1::Confidence_MAX);
constexpr ebnccl::v1::Confidence ToWire(Confidence confidence) {
  return static_cast<ebnccl::v1::Confidence>(confidence);
}
std::string ConfidenceName(Confidence confidence);

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
  // With network_judged: the rails its completed pair tests measured one
  // by one (split rails), sorted; empty when they gave no per-rail result
  // (Gloo, one rail): the network was judged as a whole, every rail.
  std::vector<int> judged_rails;
  std::vector<Evidence> evidence;
};

// Both nodes did well with other partners, and were slow together twice.
struct PathVerdict {
  std::string a, b;
  Verdict verdict = Verdict::kDegraded;
  Confidence confidence = Confidence::kSuspect;
  std::string reason;
  std::vector<int> rails;  // rails slow in both observations (empty: all)
  // The two flows together on one link of a path that is fine in other
  // pairs (link_verdicts.h), not a link's fault.
  bool routing_collision = false;
  std::vector<Evidence> evidence;
};

struct RailVerdict {
  std::string node;
  int rail = 0;
  Verdict verdict = Verdict::kDegraded;
  Confidence confidence = Confidence::kSuspect;
  std::string reason;
};

// One end of a link: a switch and its port(s) (several for parallel
// cables between the same two switches), or a node's HCA for a node-side
// cable.
struct LinkEnd {
  std::string switch_name;  // "" for a node's end
  std::string switch_guid;  // "" when the topology gave none
  std::vector<int> ports;
  std::string node;  // a node's end: its name and HCA
  std::string hca;
};

// A leaf-spine link that slows the pair tests crossing it (issue 31): the
// localization over links (coordinator/topology) named it. A node-side
// cable is a RailVerdict instead (one rail of one node).
struct LinkVerdict {
  LinkEnd a, b;  // the leaf, then the spine
  int rail = 0;
  Verdict verdict = Verdict::kDegraded;
  Confidence confidence = Confidence::kSuspect;
  std::string reason;
  double ratio = 1;  // the lowest measured / expected of its slow tests
  // Other links no pair test can tell this one apart from (one of them is
  // bad), as "leaf-3 port 17 - spine-2 port 4"; empty when named exactly.
  std::vector<std::string> inseparable_from;
  std::vector<Evidence> evidence;
};

enum class FindingKind {
  // No node passed a pair test: pairs cannot localize.
  kNoTrustedNode = ebnccl::v1::FINDING_KIND_NO_TRUSTED_NODE,
  // The fleet median is below its expected figure.
  kFleetBelowExpected = ebnccl::v1::FINDING_KIND_FLEET_BELOW_EXPECTED,
  // No expected figure and too few nodes for a median.
  kNotJudged = ebnccl::v1::FINDING_KIND_NOT_JUDGED,
  // No expected figure: verdicts rest on the fleet median.
  kMedianOnly = ebnccl::v1::FINDING_KIND_MEDIAN_ONLY,
  // The fleet suite's test is slow: congestion at scale.
  kFleetTestSlow = ebnccl::v1::FINDING_KIND_FLEET_TEST_SLOW,
  // The fleet suite's test failed or could not run.
  kFleetTestFailed = ebnccl::v1::FINDING_KIND_FLEET_TEST_FAILED,
  // max_pair_rounds reached with evidence still short.
  kRoundLimit = ebnccl::v1::FINDING_KIND_ROUND_LIMIT,
  // Fewer than 2 testable nodes for pairs or fleet.
  kTooFewNodes = ebnccl::v1::FINDING_KIND_TOO_FEW_NODES,
  // Planned tests ended without a measurement: not a pass (exit 3).
  kTestsUnjudged = ebnccl::v1::FINDING_KIND_TESTS_UNJUDGED,
};
static_assert(static_cast<int>(FindingKind::kTestsUnjudged) == ebnccl::v1::FindingKind_MAX);
constexpr ebnccl::v1::FindingKind ToWire(FindingKind kind) {
  return static_cast<ebnccl::v1::FindingKind>(kind);
}
std::string FindingKindName(FindingKind kind);

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
  bool soak = false;
};

struct ValidationReport {
  bool done = false;
  std::vector<NodeVerdict> nodes;  // input order
  std::vector<PathVerdict> paths;
  std::vector<RailVerdict> rails;
  std::vector<LinkVerdict> links;
  std::vector<Finding> findings;
  std::vector<RoundSummary> rounds;
  int intra_rounds = 0, intra_tests = 0;
  int pair_rounds = 0, pair_tests = 0;
  int fleet_tests = 0;

  // Exit 7: any node, path, rail or link degraded or failed, or a bad finding.
  bool AnyBad() const;
  const NodeVerdict* Find(const std::string& node) const;
};

}  // namespace eb::validation
