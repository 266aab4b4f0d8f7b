#include "tests/unit/validation/scripted_fleet.h"

#include <algorithm>

namespace eb::validation::test {

TestResult ScriptedFleet::Answer(const Round& round, const PlannedTest& test) {
  TestResult result = Measure(round, test);
  if (result.outcome != ::eb::validation::Outcome::kCompleted) return result;
  result.graded_bytes = script_.graded_bytes;
  for (const std::string& node : test.nodes) {
    auto it = script_.slow_from_soak_repeat.find(node);
    if (it == script_.slow_from_soak_repeat.end()) continue;
    if (round.soak && round.suite_round >= it->second) turned_slow_.insert(node);
    if (turned_slow_.count(node) == 0) continue;
    result.busbw_gbps /= 2;
    for (RailResult& r : result.rails) r.busbw_gbps /= 2;
  }
  return result;
}

TestResult ScriptedFleet::Measure(const Round& round, const PlannedTest& test) {
  std::vector<std::string> dead;
  for (const std::string& node : test.nodes) {
    auto it = script_.dies_in_round.find(node);
    if (it != script_.dies_in_round.end() && round.number >= it->second) dead.push_back(node);
  }
  if (!dead.empty()) return TestResult::InfraFailure(test.id, dead, "agent lost");
  for (const std::string& node : test.nodes) {
    auto it = script_.unnamed_infra.find(node);
    if (it != script_.unnamed_infra.end() && it->second > 0) {
      --it->second;
      return TestResult::InfraFailure(test.id, {}, "launch failed");
    }
  }
  for (const std::string& node : test.nodes) {
    if (script_.wrong_data.count(node) != 0) {
      return TestResult::HardwareFailure(test.id, {node}, "wrong data on rank 3");
    }
  }
  const std::set<std::string> test_nodes(test.nodes.begin(), test.nodes.end());
  const bool stuck_node =
      test.nodes.size() > 1 &&
      std::any_of(test.nodes.begin(), test.nodes.end(),
                  [&](const std::string& node) { return script_.stuck_node.count(node) != 0; });
  if (stuck_node || script_.stuck_path.count(test_nodes) != 0 ||
      (script_.fleet_stuck && test.kind == TestKind::kFleet)) {
    return TestResult::HardwareFailure(test.id, test.nodes, "no rank made progress for 3s");
  }
  // A deterministic wobble of +-0.4% instead of noise.
  const double wobble = 1 + 0.002 * static_cast<double>(test.id % 5 - 2);
  auto factor = [&](const std::map<std::string, double>& m, const std::string& node) {
    auto it = m.find(node);
    return it == m.end() ? 1.0 : it->second;
  };
  if (test.kind == TestKind::kIntra) {
    const std::string& node = test.nodes.front();
    double f = std::min(factor(script_.node, node), factor(script_.intra, node));
    if (seen_intra_.insert(node).second) f = std::min(f, factor(script_.intra_once, node));
    return TestResult::Completed(test.id, script_.intra_gbps * f * wobble);
  }
  const std::set<std::string> members(test.nodes.begin(), test.nodes.end());
  double common = 1;
  for (const std::string& node : test.nodes) {
    common = std::min({common, factor(script_.node, node), factor(script_.nic, node)});
  }
  if (test.kind == TestKind::kPair) {
    auto it = script_.path.find(members);
    if (it != script_.path.end()) common = std::min(common, it->second);
    if (script_.path_once.count(members) != 0 && seen_pairs_.insert(members).second) {
      common = std::min(common, 0.5);
    }
  }
  if (test.kind == TestKind::kFleet) common *= script_.fleet;
  std::vector<RailResult> rails;
  double sum = 0;
  for (int r = 0; r < script_.rails; ++r) {
    double f = common;
    for (const std::string& node : test.nodes) {
      auto it = script_.rail.find({node, r});
      if (it != script_.rail.end()) f = std::min(f, it->second);
    }
    if (test.kind == TestKind::kPair && script_.fabric) {
      f = std::min(f, script_.fabric(test.nodes[0], test.nodes[1], r));
    }
    rails.push_back({r, script_.rail_gbps * f * wobble});
    sum += rails.back().busbw_gbps;
  }
  if (!test.split_rails) return TestResult::Completed(test.id, sum);
  return TestResult::Completed(test.id, 0, std::move(rails));
}

Outcome RunToEnd(std::vector<Node> nodes, Options options, Script script) {
  Outcome out;
  absl::StatusOr<std::unique_ptr<Validation>> v =
      Validation::Create(std::move(nodes), std::move(options));
  if (!v.ok()) {
    out.error = std::string(v.status().message());
    return out;
  }
  const int soak_repeats = script.soak_repeats;
  ScriptedFleet fleet(std::move(script));
  int soaked = 0;
  for (int guard = 0; guard < 1000; ++guard) {
    (*v)->KeepSoaking(soaked < soak_repeats);
    absl::StatusOr<Round> round = (*v)->NextRound();
    if (!round.ok()) {
      out.error = std::string(round.status().message());
      return out;
    }
    if (round->done) break;
    for (const PlannedTest& test : round->tests) {
      absl::Status recorded = (*v)->Record(fleet.Answer(*round, test));
      if (!recorded.ok()) {
        out.error = std::string(recorded.message());
        return out;
      }
    }
    if (round->soak) ++soaked;
    out.rounds.push_back(*std::move(round));
  }
  out.report = (*v)->Report();
  return out;
}

std::vector<Round> RoundsOf(const Outcome& outcome, TestKind kind) {
  std::vector<Round> rounds;
  for (const Round& r : outcome.rounds) {
    if (r.kind == kind) rounds.push_back(r);
  }
  return rounds;
}

}  // namespace eb::validation::test
