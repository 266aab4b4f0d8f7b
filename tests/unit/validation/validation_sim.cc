// validation_sim: the simulation table of docs/BENCHMARKS.md ("Fleet
// validation, simulated"). Runs the validation core against simulated fleets
// (tests/unit/validation/sim.h) for N = 2, 3, 16, 232, 1024, k = 0..5
// injected faults of each kind, `--seeds` scenarios each, and prints one
// markdown row per (N, kind, k): faults found, healthy nodes blamed, pair
// rounds and pair tests used, against the targets. Deterministic.
//
//   build/bin/validation_sim [--seeds 10] [--noise 0.02] [--no-expected]
//                            [--size N]... [--all-pairs-up-to 16]
//   build/bin/validation_sim --show N KIND K SEED   # one scenario, traced

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tests/unit/validation/sim.h"

namespace {

using eb::validation::Strategy;
using namespace eb::validation::sim;

struct Row {
  int scenarios = 0, faults = 0, found = 0, confirmed = 0, explained = 0, blamed = 0;
  int errors = 0;
  int max_rounds = 0, max_tests = 0, over_budget = 0, over_rounds = 0;
  double rounds = 0, tests = 0;
};

// log2 C(n, k), rounded up: the group-testing lower bound on tests.
int GroupTestingBound(int n, int k) {
  double bits = 0;
  for (int i = 0; i < k; ++i) bits += std::log2(static_cast<double>(n - i) / (k - i));
  return static_cast<int>(std::ceil(bits - 1e-9));
}

}  // namespace

int main(int argc, char** argv) {
  int seeds = 10;
  double noise = 0.02;
  bool with_expected = true;
  int all_pairs_up_to = 16;
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--seeds" && i + 1 < argc)
      seeds = std::atoi(argv[++i]);
    else if (arg == "--noise" && i + 1 < argc)
      noise = std::atof(argv[++i]);
    else if (arg == "--no-expected")
      with_expected = false;
    else if (arg == "--size" && i + 1 < argc)
      sizes.push_back(std::atoi(argv[++i]));
    else if (arg == "--all-pairs-up-to" && i + 1 < argc)
      all_pairs_up_to = std::atoi(argv[++i]);
    else if (arg == "--show" && i + 4 < argc) {
      // --show N KIND K SEED: one scenario of the table (KIND: its index,
      // 0 node, 1 mild, 2 rail, 3 path, 4 dead, 5 flaky, 6 mixed), traced.
      const int n = std::atoi(argv[i + 1]);
      const auto kind = static_cast<FaultKind>(std::atoi(argv[i + 2]));
      const int k = std::atoi(argv[i + 3]);
      const int seed = std::atoi(argv[i + 4]);
      Scenario s = RandomScenario(n, k, kind, ScenarioSeed(n, k, kind, seed));
      s.rail_noise = noise;
      s.common_noise = noise / 2;
      s.with_expected = with_expected;
      std::vector<std::string> trace;
      const Run run = RunScenario(s, &trace);
      for (const std::string& line : trace) std::printf("%s\n", line.c_str());
      std::printf("%s", Describe(s, run).c_str());
      return 0;
    } else {
      std::fprintf(stderr,
                   "usage: validation_sim [--seeds N] [--noise SIGMA] [--no-expected] "
                   "[--size N]... [--all-pairs-up-to N] [--show N KIND K SEED]\n");
      return 2;
    }
  }
  if (sizes.empty()) sizes = {2, 3, 16, 232, 1024};
  const std::vector<FaultKind> kinds = {FaultKind::kNode, FaultKind::kRail,  FaultKind::kPath,
                                        FaultKind::kDead, FaultKind::kFlaky, FaultKind::kMild,
                                        FaultKind::kMixed};
  std::printf("rail noise %.1f%%, common noise %.1f%%, %s, %d scenarios per row\n\n", noise * 100,
              noise * 50, with_expected ? "expected figures given" : "no expected figures", seeds);
  std::printf(
      "| N | faults | k | found | confirmed | explained | healthy blamed | pair rounds "
      "mean / max | pair tests mean / max | N/2+4k | over budget | all-pairs rounds "
      "/ tests | group-testing bound |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  int total = 0, total_blamed = 0, total_errors = 0;
  for (int n : sizes) {
    for (FaultKind kind : kinds) {
      for (int k = (kind == FaultKind::kNode ? 0 : 1); k <= std::min(5, n); ++k) {
        Row row;
        for (int seed = 1; seed <= seeds; ++seed) {
          Scenario s = RandomScenario(n, k, kind, ScenarioSeed(n, k, kind, seed));
          s.rail_noise = noise;
          s.common_noise = noise / 2;
          s.with_expected = with_expected;
          const Run run = RunScenario(s);
          const Score score = ScoreRun(s, run);
          ++row.scenarios;
          row.errors += !run.error.empty();
          for (const KindScore& ks : score.by_kind) {
            row.faults += ks.faults;
            row.found += ks.found;
            row.confirmed += ks.confirmed;
            row.explained += ks.explained;
          }
          row.blamed += static_cast<int>(score.healthy_blamed.size());
          row.rounds += run.pair_rounds;
          row.tests += run.pair_tests;
          row.max_rounds = std::max(row.max_rounds, run.pair_rounds);
          row.max_tests = std::max(row.max_tests, run.pair_tests);
          const int faults = static_cast<int>(s.faults.size());
          row.over_budget += run.pair_tests > n / 2 + 4 * faults;
          for (const std::string& b : score.healthy_blamed) {
            std::fprintf(stderr, "N=%d %s k=%d seed=%d blamed %s\n", n, FaultKindName(kind), k,
                         seed, b.c_str());
          }
          for (const std::string& m : score.imprecise) {
            std::fprintf(stderr, "N=%d %s k=%d seed=%d imprecise %s\n", n, FaultKindName(kind), k,
                         seed, m.c_str());
          }
          for (const std::string& m : score.missed) {
            std::fprintf(stderr, "N=%d %s k=%d seed=%d missed %s\n", n, FaultKindName(kind), k,
                         seed, m.c_str());
          }
        }
        total += row.scenarios;
        total_blamed += row.blamed;
        total_errors += row.errors;
        const char* name = k == 0 ? "none (healthy)" : FaultKindName(kind);
        std::string all_pairs = n % 2 == 0 ? std::to_string(n - 1) : std::to_string(n);
        all_pairs += " / " + std::to_string(n * (n - 1) / 2);
        std::printf(
            "| %d | %s | %d | %d/%d | %d | %d | %d | %.2f / %d | %.1f / %d | %d | %d | %s "
            "| %d |\n",
            n, name, k, row.found, row.faults, row.confirmed, row.explained, row.blamed,
            row.rounds / row.scenarios, row.max_rounds, row.tests / row.scenarios, row.max_tests,
            n / 2 + 4 * k, row.over_budget, all_pairs.c_str(), GroupTestingBound(n, k));
      }
    }
  }
  // All-pairs, run for real on the small fleets, for comparison.
  std::printf(
      "\nall-pairs (round-robin), run:\n\n| N | faults | k | found | healthy blamed | "
      "pair rounds | pair tests |\n|---|---|---|---|---|---|---|\n");
  for (int n : sizes) {
    if (n > all_pairs_up_to) continue;
    for (int k = 0; k <= std::min(2, n); ++k) {
      Scenario s = RandomScenario(n, k, FaultKind::kNode, 77 + n + k);
      s.strategy = Strategy::kAllPairs;
      s.rail_noise = noise;
      s.common_noise = noise / 2;
      s.with_expected = with_expected;
      const Run run = RunScenario(s);
      const Score score = ScoreRun(s, run);
      std::printf("| %d | %s | %d | %d/%zu | %zu | %d | %d |\n", n, "bad node", k,
                  score.by_kind[0].found, s.faults.size(), score.healthy_blamed.size(),
                  run.pair_rounds, run.pair_tests);
    }
  }
  std::printf("\n%d scenarios, %d healthy nodes blamed, %d errors\n", total, total_blamed,
              total_errors);
  return total_errors == 0 ? 0 : 1;
}
