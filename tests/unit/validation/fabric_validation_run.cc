#include "tests/unit/validation/fabric_validation_run.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "coordinator/topology/paths.h"
#include "tests/unit/validation/fleet_fixture.h"

namespace eb::validation::sim {
namespace {

// The nodes of s's faults that may carry a node or rail verdict.
std::set<std::string> FaultyNodesOf(const FabricScenario& s) {
  const topology::FabricIndex& index = SimIndexOf(s.shape);
  std::set<std::string> nodes;
  for (const LinkFault& f : s.faults) {
    if (f.kind == LinkFaultKind::kCable || f.kind == LinkFaultKind::kNode ||
        f.kind == LinkFaultKind::kRail) {
      nodes.insert(index.NodeName(f.node));
    }
  }
  return nodes;
}

// Healthy nodes blamed and links named that hold no fault: a link named is
// wrong unless it is a faulty uplink or one of a set that no pair can tell
// apart and that holds one.
void ScoreWrongVerdicts(const FabricScenario& s, const ValidationReport& r,
                        FabricValidationScore& score) {
  const topology::FabricIndex& index = SimIndexOf(s.shape);
  const std::set<std::string> faulty_nodes = FaultyNodesOf(s);
  for (const NodeVerdict& v : r.nodes) {
    if (v.verdict != Verdict::kHealthy && faulty_nodes.count(v.node) == 0) ++score.blamed;
  }
  for (const RailVerdict& v : r.rails) {
    if (faulty_nodes.count(v.node) == 0) ++score.blamed;
  }
  std::set<std::pair<std::string, std::string>> faulty_uplinks;
  std::set<std::string> faulty_described;
  for (const LinkFault& f : s.faults) {
    if (f.kind != LinkFaultKind::kUplink) continue;
    const topology::Link& l = index.links()[f.link];
    faulty_uplinks.insert({index.SwitchName(l.leaf), index.SwitchName(l.spine)});
    faulty_described.insert(index.Describe(f.link));
  }
  for (const LinkVerdict& v : r.links) {
    if (faulty_uplinks.count({v.a.switch_name, v.b.switch_name}) != 0) continue;
    const bool with_fault =
        std::any_of(v.inseparable_from.begin(), v.inseparable_from.end(),
                    [&](const std::string& other) { return faulty_described.count(other) != 0; });
    if (!with_fault) ++score.wrong;
  }
}

void ScoreUplinkFound(const FabricScenario& s, const LinkFault& f, const ValidationReport& r,
                      FabricValidationScore& score) {
  const topology::FabricIndex& index = SimIndexOf(s.shape);
  ++score.uplinks;
  const topology::Link& l = index.links()[f.link];
  const std::string leaf = index.SwitchName(l.leaf), spine = index.SwitchName(l.spine);
  for (const LinkVerdict& v : r.links) {
    if (v.a.switch_name != leaf || v.b.switch_name != spine) continue;
    if (v.inseparable_from.empty()) {
      ++score.exact;
    } else if (v.inseparable_from.size() <= 1) {
      ++score.within_two;
    }
    return;
  }
}

// A cable or bad rail as that rail of that node, a collision with its pair
// on its rail, a bad node as not healthy.
bool OtherFaultFound(const FabricScenario& s, const LinkFault& f, const ValidationReport& r) {
  const topology::FabricIndex& index = SimIndexOf(s.shape);
  switch (f.kind) {
    case LinkFaultKind::kCable:
    case LinkFaultKind::kRail:
      return std::any_of(r.rails.begin(), r.rails.end(), [&](const auto& v) {
        return v.node == index.NodeName(f.node) && v.rail == f.rail;
      });
    case LinkFaultKind::kCollision: {
      const std::set<std::string> pair = {index.NodeName(f.node), index.NodeName(f.other)};
      return std::any_of(r.paths.begin(), r.paths.end(), [&](const auto& p) {
        return p.routing_collision && std::set<std::string>{p.a, p.b} == pair &&
               p.rails == std::vector<int>{f.rail};
      });
    }
    case LinkFaultKind::kNode:
      return std::any_of(r.nodes.begin(), r.nodes.end(), [&](const auto& v) {
        return v.node == index.NodeName(f.node) && v.verdict != Verdict::kHealthy;
      });
    case LinkFaultKind::kUplink:
      break;
  }
  return false;
}

}  // namespace

// The script takes the lower of the noise and its other factors, so only
// the downward half of the noise acts: the half that makes a healthy rail
// look slow.
test::Outcome RunFabricThroughValidation(const FabricScenario& s, bool noisy) {
  const topology::FabricIndex& index = SimIndexOf(s.shape);
  const std::vector<std::string> names = SimNodeNames(s.shape.n);
  std::vector<Node> nodes = test::H100Fleet(s.shape.n);
  for (int i = 0; i < s.shape.n; ++i) {
    nodes[i].name = names[i];
    nodes[i].leaf = index.SwitchName(index.LeafOf(i, 0));
  }
  Options options;
  options.baselines = test::ShippedFigures();
  options.fabric = std::make_shared<const topology::Fabric>(SimFabric(s.shape));
  options.tolerance = s.tolerance;
  test::Script script;
  auto rng = std::make_shared<std::mt19937_64>(s.seed ^ 0x51ed2701ULL);
  auto common = std::make_shared<double>(1);
  script.fabric = [&s, names, noisy, rng, common](const std::string& a, const std::string& b,
                                                  int rail) {
    auto at = [&](const std::string& name) {
      return static_cast<int>(std::find(names.begin(), names.end(), name) - names.begin());
    };
    const double factor = ScenarioFactor(s, at(a), at(b), rail);
    if (!noisy) return factor;
    // The script asks rails 0, 1, ... of a test in turn: rail 0 starts a test.
    if (rail == 0) *common = 1 + std::normal_distribution<double>(0, s.common_noise)(*rng);
    return factor * *common * (1 + std::normal_distribution<double>(0, s.rail_noise)(*rng));
  };
  return test::RunToEnd(std::move(nodes), std::move(options), std::move(script));
}

FabricValidationScore ScoreFabricValidation(const FabricScenario& s, const test::Outcome& out) {
  FabricValidationScore score;
  ScoreWrongVerdicts(s, out.report, score);
  for (const LinkFault& f : s.faults) {
    if (f.kind == LinkFaultKind::kUplink) {
      ScoreUplinkFound(s, f, out.report, score);
    } else {
      ++score.others;
      score.others_found += OtherFaultFound(s, f, out.report);
    }
  }
  return score;
}

FabricValidationFleet RunFabricValidationFleet(const FabricScenario& s, bool noisy) {
  FabricValidationFleet fleet;
  const auto start = std::chrono::steady_clock::now();
  fleet.outcome = RunFabricThroughValidation(s, noisy);
  fleet.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const test::Outcome baseline = RunFabricThroughValidation(WithoutLinkFaults(s), noisy);
  fleet.error = fleet.outcome.error + baseline.error;
  fleet.rounds = static_cast<int>(fleet.outcome.rounds.size());
  fleet.extra_rounds = fleet.rounds - static_cast<int>(baseline.rounds.size());
  fleet.score = ScoreFabricValidation(s, fleet.outcome);
  return fleet;
}

std::vector<std::string> FabricValidationMisses(const FabricValidationFleet& fleet) {
  const FabricValidationScore& score = fleet.score;
  std::vector<std::string> misses;
  if (!fleet.error.empty()) misses.push_back("error: " + fleet.error);
  if (score.exact + score.within_two < score.uplinks) {
    misses.push_back(absl::StrFormat("uplinks named: %d exactly and %d within 2 of %d", score.exact,
                                     score.within_two, score.uplinks));
  }
  if (score.others_found < score.others) {
    misses.push_back(
        absl::StrFormat("other faults found: %d of %d", score.others_found, score.others));
  }
  if (score.blamed > 0) misses.push_back(absl::StrFormat("healthy nodes blamed: %d", score.blamed));
  if (score.wrong > 0) misses.push_back(absl::StrFormat("wrong links named: %d", score.wrong));
  if (fleet.extra_rounds > kMaxExtraRounds) {
    misses.push_back(absl::StrFormat("%d rounds more than without the link faults (at most %d)",
                                     fleet.extra_rounds, kMaxExtraRounds));
  }
  return misses;
}

std::string TraceFabricValidation(const FabricScenario& s, const test::Outcome& out) {
  std::string trace =
      absl::StrFormat("N=%d, leaves of %d, %d spines a rail, %s%s\n", s.shape.n, s.shape.leaf_size,
                      s.shape.spines, FabricCaseName(s.fault_case), out.error);
  for (const Round& round : out.rounds) {
    absl::StrAppendFormat(&trace, "round %d (%s %d): %zu tests, first: %s\n", round.number,
                          TestKindName(round.kind), round.suite_round, round.tests.size(),
                          round.tests.empty() ? "" : round.tests.front().purpose);
  }
  for (const LinkVerdict& v : out.report.links) {
    absl::StrAppendFormat(&trace, "link %s - %s: %s\n", v.a.switch_name, v.b.switch_name, v.reason);
  }
  return trace;
}

}  // namespace eb::validation::sim
