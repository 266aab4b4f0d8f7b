#include "tests/unit/validation/sim.h"

#include <algorithm>
#include <map>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/validation/pair_planner.h"
#include "tests/unit/validation/fleet_fixture.h"

namespace eb::validation::sim {
namespace {

constexpr int kGpus = 8;
constexpr double kRailExpected = 46;   // GB/s per 400G NIC (nccl-tests #290)
constexpr double kPairExpected = 365;  // GB/s, 8 x 400G ring (OCI ncclscout)
constexpr double kIntraExpected = 475;

std::string NodeName(int i) { return absl::StrFormat("n%04d", i); }
// 32 nodes per leaf switch.
std::string LeafName(int i) { return absl::StrCat("leaf", i / 32); }

class Oracle {
 public:
  explicit Oracle(const Scenario& s) : s_(s), rng_(s.seed * 0x9E3779B97F4A7C15ull + 7) {
    for (const Fault& f : s.faults) by_node_.emplace(f.node, f);
  }

  TestResult Answer(const Round& round, const PlannedTest& test) {
    std::vector<int> nodes;
    for (const std::string& name : test.nodes) nodes.push_back(std::stoi(name.substr(1)));
    std::vector<std::string> dead;
    for (int i : nodes) {
      auto range = by_node_.equal_range(i);
      for (auto it = range.first; it != range.second; ++it) {
        if (it->second.kind == FaultKind::kDead &&
            round.suite_round > it->second.dies_after_round) {
          dead.push_back(NodeName(i));
        }
      }
    }
    if (!dead.empty()) {
      for (const std::string& d : dead) dead_seen_.push_back(std::stoi(d.substr(1)));
      return TestResult::InfraFailure(test.id, dead, "agent lost (simulated)");
    }

    std::vector<double> factor(kGpus, 1.0);
    auto slow = [&](int rail, double f) {
      if (rail < 0) {
        for (double& x : factor) x = std::min(x, f);
      } else {
        factor[rail] = std::min(factor[rail], f);
      }
    };
    for (const Fault& f : s_.faults) {
      const bool in = std::find(nodes.begin(), nodes.end(), f.node) != nodes.end();
      if (!in) continue;
      switch (f.kind) {
        case FaultKind::kNode:
        case FaultKind::kMild:
          slow(-1, f.factor);
          break;
        case FaultKind::kRail:
          slow(f.rail, f.factor);
          break;
        case FaultKind::kFlaky:
          if (std::bernoulli_distribution(0.5)(rng_)) slow(-1, f.factor);
          break;
        case FaultKind::kPath:
          if (std::find(nodes.begin(), nodes.end(), f.other) != nodes.end()) slow(-1, f.factor);
          break;
        default:
          break;
      }
    }
    std::normal_distribution<double> common(0, s_.common_noise);
    std::normal_distribution<double> per_rail(0, s_.rail_noise);
    if (test.kind == TestKind::kIntra) {
      return TestResult::Completed(test.id, kIntraExpected * s_.level * (1 + common(rng_)));
    }
    const double c = 1 + common(rng_);
    std::vector<RailResult> rails;
    double sum = 0;
    for (int r = 0; r < kGpus; ++r) {
      const double v = kRailExpected * s_.level * factor[r] * c * (1 + per_rail(rng_));
      rails.push_back({r, v});
      sum += v;
    }
    if (!test.split_rails) return TestResult::Completed(test.id, sum);
    return TestResult::Completed(test.id, 0, std::move(rails));
  }

  std::vector<int> dead_seen() const { return dead_seen_; }

 private:
  const Scenario& s_;
  std::mt19937_64 rng_;
  std::vector<int> dead_seen_;
  std::multimap<int, Fault> by_node_;
};

}  // namespace

const char* FaultKindName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kNode:
      return "bad node";
    case FaultKind::kMild:
      return "mild node";
    case FaultKind::kRail:
      return "bad rail";
    case FaultKind::kPath:
      return "bad path";
    case FaultKind::kDead:
      return "dead agent";
    case FaultKind::kFlaky:
      return "flaky node";
    case FaultKind::kMixed:
      return "mixed";
  }
  return "unknown";
}

bool Asserted(FaultKind kind) {
  return kind == FaultKind::kNode || kind == FaultKind::kRail || kind == FaultKind::kPath ||
         kind == FaultKind::kDead;
}

uint64_t ScenarioSeed(int n, int k, FaultKind kind, int index) {
  return 1000003ull * n + 7919ull * k + 104729ull * static_cast<uint64_t>(kind) + index;
}

Scenario RandomScenario(int n, int k, FaultKind kind, uint64_t seed) {
  Scenario s;
  s.n = n;
  s.kind = kind;
  s.seed = seed;
  std::mt19937_64 rng(seed);
  s.level = std::uniform_real_distribution<double>(0.97, 1.05)(rng);
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<int> all = order;
  std::sort(all.begin(), all.end());
  std::vector<std::string> leaves;
  for (int i = 0; i < n; ++i) leaves.push_back(LeafName(i));
  std::vector<NodePair> matched = FirstRoundMatching(all, leaves);
  std::shuffle(matched.begin(), matched.end(), rng);
  std::vector<bool> used(n, false);
  std::uniform_real_distribution<double> bad(0.3, 0.8);
  for (int j = 0; j < k; ++j) {
    Fault f;
    f.kind = kind;
    if (kind == FaultKind::kMixed) {
      f.kind = static_cast<FaultKind>(std::uniform_int_distribution<int>(0, 5)(rng));
    }
    f.factor = f.kind == FaultKind::kMild ? std::uniform_real_distribution<double>(0.80, 0.87)(rng)
               : f.kind == FaultKind::kRail ? std::uniform_real_distribution<double>(0.3, 0.7)(rng)
                                            : bad(rng);
    f.rail = std::uniform_int_distribution<int>(0, kGpus - 1)(rng);
    f.dies_after_round = std::uniform_int_distribution<int>(0, 2)(rng);
    if (f.kind == FaultKind::kPath) {
      auto it = std::find_if(matched.begin(), matched.end(),
                             [&](const NodePair& p) { return !used[p.first] && !used[p.second]; });
      if (it == matched.end()) break;
      f.node = it->first;
      f.other = it->second;
      used[f.node] = used[f.other] = true;
    } else {
      auto it = std::find_if(order.begin(), order.end(), [&](int i) { return !used[i]; });
      if (it == order.end()) break;
      f.node = *it;
      used[f.node] = true;
    }
    s.faults.push_back(f);
  }
  return s;
}

std::vector<Node> SimFleet(int n) {
  // One inventory for every node, fleet_fixture.h's (8 GPUs, 8 HCAs): the
  // simulated faults are in the data plane, so preflight finds every node
  // fit.
  const ebnccl::v1::NodeInventory inventory = test::H100Inventory();
  std::vector<Node> nodes;
  nodes.reserve(n);
  for (int i = 0; i < n; ++i) {
    Node node = NodeFromInventory(NodeName(i), inventory);
    node.leaf = LeafName(i);
    nodes.push_back(std::move(node));
  }
  return nodes;
}

Options SimOptions(const Scenario& scenario) {
  Options options;
  options.suites = {Suite::kPreflight, Suite::kPairs};
  options.strategy = scenario.strategy;
  options.max_pair_rounds = scenario.strategy == Strategy::kAllPairs ? scenario.n + 1 : 8;
  options.soak = scenario.soak_repeats > 0;
  if (scenario.with_expected) {
    options.baselines.intra.push_back({"H100", 8, kIntraExpected, "nccl-tests #212 (NVLS)"});
    options.baselines.pairs.push_back({400, 1, kRailExpected, "nccl-tests #290"});
    options.baselines.pairs.push_back({400, 8, kPairExpected, "OCI ncclscout"});
  }
  return options;
}

Run RunScenario(const Scenario& scenario, std::vector<std::string>* trace) {
  Run run;
  absl::StatusOr<std::unique_ptr<Validation>> v =
      Validation::Create(SimFleet(scenario.n), SimOptions(scenario));
  if (!v.ok()) {
    run.error = std::string(v.status().message());
    return run;
  }
  Oracle oracle(scenario);
  int soaks = 0;
  for (int guard = 0; guard < 100000; ++guard) {
    absl::StatusOr<Round> round = (*v)->NextRound();
    if (!round.ok()) {
      run.error = std::string(round.status().message());
      return run;
    }
    if (round->done) break;
    // The runner's clock, in repeats: once the last allowed one has started,
    // time is up (re-tests of what it found slow still run).
    if (round->soak && ++soaks >= scenario.soak_repeats) (*v)->KeepSoaking(false);
    for (const PlannedTest& test : round->tests) {
      const TestResult result = oracle.Answer(*round, test);
      if (trace != nullptr) {
        std::string line = absl::StrFormat(
            "round %d (%s %d) test %d %s [%s]: %s %.1f", round->number, TestKindName(round->kind),
            round->suite_round, test.id, absl::StrJoin(test.nodes, "-"), test.purpose,
            OutcomeName(result.outcome), result.busbw_gbps);
        for (const RailResult& r : result.rails)
          absl::StrAppendFormat(&line, " %.1f", r.busbw_gbps);
        trace->push_back(line);
      }
      absl::Status recorded = (*v)->Record(result);
      if (!recorded.ok()) {
        run.error = std::string(recorded.message());
        return run;
      }
    }
  }
  run.report = (*v)->Report();
  run.dead_seen = oracle.dead_seen();
  run.pair_rounds = run.report.pair_rounds;
  run.pair_tests = run.report.pair_tests;
  return run;
}

Score ScoreRun(const Scenario& s, const Run& run) {
  Score score;
  const ValidationReport& r = run.report;
  std::vector<bool> faulty(s.n, false);
  for (const Fault& f : s.faults) {
    if (f.kind != FaultKind::kPath) faulty[f.node] = true;
  }
  auto bad = [](const NodeVerdict* v) {
    return v != nullptr && (v->verdict == Verdict::kDegraded || v->verdict == Verdict::kFailed);
  };
  for (const NodeVerdict& v : r.nodes) {
    if (!faulty[std::stoi(v.node.substr(1))] && bad(&v)) {
      score.healthy_blamed.push_back(absl::StrCat(v.node, ": ", v.reason));
    }
  }
  bool why = false;  // the report says why localization was not possible
  for (const Finding& f : r.findings) {
    // The fleet median alone, over a handful of nodes most of which are bad,
    // sits among the bad ones: no figure, no verdict, and the report says so.
    why = why || f.kind == FindingKind::kNoTrustedNode || f.kind == FindingKind::kNotJudged ||
          f.kind == FindingKind::kFleetBelowExpected ||
          (f.kind == FindingKind::kMedianOnly && s.n < 2 * kMinFleetNodes);
  }
  auto in_path = [&](int a, int b) {
    for (const PathVerdict& p : r.paths) {
      const bool has_a = p.a == NodeName(a) || p.b == NodeName(a);
      const bool has_b = b < 0 || p.a == NodeName(b) || p.b == NodeName(b);
      if (has_a && has_b) return &p;
    }
    return static_cast<const PathVerdict*>(nullptr);
  };
  for (const Fault& f : s.faults) {
    KindScore& k = score.by_kind[static_cast<int>(f.kind)];
    ++k.faults;
    const NodeVerdict* v = r.Find(NodeName(f.node));
    bool found = false, confirmed = false;
    switch (f.kind) {
      case FaultKind::kNode:
      case FaultKind::kMild:
      case FaultKind::kFlaky:
        found = bad(v) || (f.kind == FaultKind::kFlaky && in_path(f.node, -1) != nullptr);
        confirmed = bad(v) && v->confidence == Confidence::kConfirmed;
        break;
      case FaultKind::kRail:
        found = bad(v) &&
                std::find(v->bad_rails.begin(), v->bad_rails.end(), f.rail) != v->bad_rails.end();
        confirmed = found && v->confidence == Confidence::kConfirmed;
        break;
      case FaultKind::kPath: {
        const PathVerdict* p = in_path(f.node, f.other);
        found = p != nullptr;
        confirmed = found && p->confidence == Confidence::kConfirmed;
        break;
      }
      case FaultKind::kDead:
        if (std::find(run.dead_seen.begin(), run.dead_seen.end(), f.node) == run.dead_seen.end()) {
          --k.faults;  // it died after its last test: nothing to find
          continue;
        }
        found = v != nullptr && v->verdict == Verdict::kUntestable;
        confirmed = found;
        break;
      case FaultKind::kMixed:
        break;
    }
    k.found += found;
    k.confirmed += confirmed;
    if (found && (f.kind == FaultKind::kNode || f.kind == FaultKind::kMild) &&
        !v->bad_rails.empty()) {
      score.imprecise.push_back(absl::StrCat(NodeName(f.node), " blamed on rails"));
    }
    if (found && f.kind == FaultKind::kRail && v->bad_rails.size() != 1) {
      score.imprecise.push_back(absl::StrCat(NodeName(f.node), " blamed on more rails"));
    }
    if (found) continue;
    // Not found: does the report say why? (no trusted node, no baseline,
    // the fleet below its figure, or the node named in a slow pair nobody
    // could localize, or not judged).
    const bool explained =
        why || in_path(f.node, -1) != nullptr ||
        (v != nullptr && v->verdict == Verdict::kUntestable && !v->network_judged);
    if (explained) {
      ++k.explained;
    } else if (Asserted(f.kind)) {
      score.missed.push_back(absl::StrCat(
          FaultKindName(f.kind), " ", NodeName(f.node),
          f.other >= 0 ? absl::StrCat("-", NodeName(f.other)) : "",
          f.kind == FaultKind::kRail ? absl::StrCat(" rail ", f.rail) : "",
          absl::StrFormat(" x%.2f", f.factor), ": ", v != nullptr ? v->reason : "no verdict"));
    }
  }
  return score;
}

const char* SensitivityCaseName(SensitivityCase c) {
  switch (c) {
    case SensitivityCase::kHealthy:
      return "healthy";
    case SensitivityCase::kRail10:
      return "one rail 10% slow";
    case SensitivityCase::kFlaky20:
      return "flaky node (20% slow in half its tests)";
  }
  return "unknown";
}

Scenario SensitivityScenario(int n, SensitivityCase c, int index, int soak_repeats) {
  const FaultKind kind = c == SensitivityCase::kRail10    ? FaultKind::kRail
                         : c == SensitivityCase::kFlaky20 ? FaultKind::kFlaky
                                                          : FaultKind::kNode;
  const int k = c == SensitivityCase::kHealthy ? 0 : 1;
  // Indices from 1,000 up: fleets apart from the tables' (1..10).
  Scenario s = RandomScenario(n, k, kind, ScenarioSeed(n, k, kind, 1000 + index));
  for (Fault& f : s.faults) f.factor = c == SensitivityCase::kRail10 ? 0.90 : 0.80;
  s.soak_repeats = soak_repeats;
  return s;
}

SensitivityScore ScoreSensitivity(const Scenario& s, const Run& run) {
  SensitivityScore score;
  const ValidationReport& r = run.report;
  std::vector<bool> faulty(s.n, false);
  for (const Fault& f : s.faults) faulty[f.node] = true;
  for (const NodeVerdict& v : r.nodes) {
    const int i = std::stoi(v.node.substr(1));
    if (!faulty[i] && v.verdict != Verdict::kHealthy) {
      score.false_flags.push_back(
          absl::StrCat(v.node, " ", VerdictName(v.verdict), ": ", v.reason));
    }
  }
  for (const PathVerdict& p : r.paths) {
    if (!faulty[std::stoi(p.a.substr(1))] && !faulty[std::stoi(p.b.substr(1))]) {
      score.false_flags.push_back(absl::StrCat("path ", p.a, "-", p.b, ": ", p.reason));
    }
  }
  for (const Fault& f : s.faults) {
    const NodeVerdict* v = r.Find(NodeName(f.node));
    const bool bad =
        v != nullptr && (v->verdict == Verdict::kDegraded || v->verdict == Verdict::kFailed);
    if (f.kind == FaultKind::kRail) {
      score.found =
          bad && std::find(v->bad_rails.begin(), v->bad_rails.end(), f.rail) != v->bad_rails.end();
      if (bad) {
        for (int rail : v->bad_rails) {
          if (rail != f.rail) score.false_flags.push_back(absl::StrCat(v->node, " rail ", rail));
        }
      }
    } else {
      bool in_path = false;
      for (const PathVerdict& p : r.paths) {
        in_path = in_path || p.a == NodeName(f.node) || p.b == NodeName(f.node);
      }
      score.found = bad || in_path;
    }
  }
  return score;
}

std::string Describe(const Scenario& s, const Run& run) {
  std::string out =
      absl::StrFormat("N=%d level=%.3f noise=%.3f/%.3f expected=%d strategy=%s\n", s.n, s.level,
                      s.rail_noise, s.common_noise, s.with_expected, StrategyName(s.strategy));
  for (const Fault& f : s.faults) {
    absl::StrAppendFormat(&out, "fault: %s %s", FaultKindName(f.kind), NodeName(f.node));
    if (f.kind == FaultKind::kPath) absl::StrAppend(&out, "-", NodeName(f.other));
    if (f.kind == FaultKind::kRail) absl::StrAppend(&out, " rail ", f.rail);
    if (f.kind == FaultKind::kDead) absl::StrAppend(&out, " after round ", f.dies_after_round);
    absl::StrAppendFormat(&out, " x%.2f\n", f.factor);
  }
  const ValidationReport& r = run.report;
  for (const NodeVerdict& v : r.nodes) {
    if (v.verdict == Verdict::kHealthy && v.reason == "pairs did well") continue;
    absl::StrAppendFormat(&out, "node %s: %s (%s): %s\n", v.node, VerdictName(v.verdict),
                          ConfidenceName(v.confidence), v.reason);
    for (const Evidence& e : v.evidence) absl::StrAppend(&out, "    ", e.text, "\n");
  }
  for (const PathVerdict& p : r.paths) {
    absl::StrAppendFormat(&out, "path %s-%s: %s (%s): %s\n", p.a, p.b, VerdictName(p.verdict),
                          ConfidenceName(p.confidence), p.reason);
  }
  for (const Finding& f : r.findings) {
    absl::StrAppendFormat(&out, "finding %s%s: %s\n", FindingKindName(f.kind),
                          f.bad ? " (bad)" : "", f.text);
  }
  absl::StrAppendFormat(&out, "pair rounds %d, pair tests %d%s\n", r.pair_rounds, r.pair_tests,
                        run.error.empty() ? "" : absl::StrCat(", error: ", run.error));
  return out;
}

}  // namespace eb::validation::sim
