#include "coordinator/validation/verdict.h"

#include <utility>

#include "common/spec/verdicts.h"
#include "common/spec/wire_names.h"

namespace eb::validation {

std::string TestKindName(TestKind kind) { return spec::WireName(ToWire(kind)); }

std::string OutcomeName(Outcome outcome) { return spec::WireName(ToWire(outcome)); }

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

std::string VerdictName(Verdict verdict) { return spec::WireName(ToWire(verdict)); }

std::string ConfidenceName(Confidence confidence) { return spec::WireName(ToWire(confidence)); }

std::string FindingKindName(FindingKind kind) { return spec::WireName(ToWire(kind)); }

namespace {
bool Bad(Verdict v) { return spec::IsBadVerdict(ToWire(v)); }
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
  for (const LinkVerdict& l : links) {
    if (Bad(l.verdict)) return true;
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
