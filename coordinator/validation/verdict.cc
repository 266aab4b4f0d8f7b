#include "coordinator/validation/verdict.h"

#include <utility>

namespace eb::validation {

const char* TestKindName(TestKind kind) {
  switch (kind) {
    case TestKind::kIntra:
      return "intra";
    case TestKind::kPair:
      return "pair";
    case TestKind::kFleet:
      return "fleet";
  }
  return "unknown";
}

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kCompleted:
      return "completed";
    case Outcome::kInfraFailure:
      return "infrastructure failure";
    case Outcome::kHardwareFailure:
      return "hardware failure";
  }
  return "unknown";
}

TestResult TestResult::Completed(int64_t id, double busbw_gbps, std::vector<RailResult> rails) {
  TestResult r;
  r.test_id = id;
  r.outcome = Outcome::kCompleted;
  r.busbw_gbps = busbw_gbps;
  r.rails = std::move(rails);
  return r;
}

TestResult TestResult::InfraFailure(int64_t id, std::vector<std::string> lost,
                                    std::string message) {
  TestResult r;
  r.test_id = id;
  r.outcome = Outcome::kInfraFailure;
  r.nodes = std::move(lost);
  r.message = std::move(message);
  return r;
}

TestResult TestResult::HardwareFailure(int64_t id, std::vector<std::string> nodes,
                                       std::string message) {
  TestResult r;
  r.test_id = id;
  r.outcome = Outcome::kHardwareFailure;
  r.nodes = std::move(nodes);
  r.message = std::move(message);
  return r;
}

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kHealthy:
      return "healthy";
    case Verdict::kDegraded:
      return "degraded";
    case Verdict::kFailed:
      return "failed";
    case Verdict::kUnfit:
      return "unfit";
    case Verdict::kUntestable:
      return "untestable";
  }
  return "unknown";
}

const char* ConfidenceName(Confidence confidence) {
  return confidence == Confidence::kConfirmed ? "confirmed" : "suspect";
}

const char* FindingKindName(FindingKind kind) {
  switch (kind) {
    case FindingKind::kNoTrustedNode:
      return "no_trusted_node";
    case FindingKind::kFleetBelowExpected:
      return "fleet_below_expected";
    case FindingKind::kNotJudged:
      return "not_judged";
    case FindingKind::kMedianOnly:
      return "median_only";
    case FindingKind::kFleetTestSlow:
      return "fleet_test_slow";
    case FindingKind::kFleetTestFailed:
      return "fleet_test_failed";
    case FindingKind::kRoundLimit:
      return "round_limit";
    case FindingKind::kTooFewNodes:
      return "too_few_nodes";
  }
  return "unknown";
}

namespace {
bool Bad(Verdict v) { return v == Verdict::kDegraded || v == Verdict::kFailed; }
}  // namespace

bool ValidationReport::AnyBad() const {
  for (const NodeVerdict& n : nodes) {
    if (Bad(n.verdict)) return true;
  }
  for (const PathVerdict& p : paths) {
    if (Bad(p.verdict)) return true;
  }
  for (const RailVerdict& r : rails) {
    if (Bad(r.verdict)) return true;
  }
  for (const Finding& f : findings) {
    if (f.bad) return true;
  }
  return false;
}

const NodeVerdict* ValidationReport::Find(const std::string& node) const {
  for (const NodeVerdict& n : nodes) {
    if (n.node == node) return &n;
  }
  return nullptr;
}

}  // namespace eb::validation
