// validation_sim: the simulation tables of docs/BENCHMARKS.md ("Fleet
// validation, simulated"). Runs the validation core against simulated fleets
// (tests/unit/validation/sim.h) for N = 2, 3, 16, 232, 1024 and k = 0..5
// injected faults of each kind, `--seeds` scenarios per (N, kind, k), and
// prints markdown tables: faults found, healthy nodes blamed, pair rounds
// and pair tests used, against the targets and the anchors. Deterministic.
//
//   build/bin/validation_sim [--seeds 10] [--noise 0.02] [--no-expected]
//                            [--size N]... [--all-pairs-up-to 232] [--detail]
//   build/bin/validation_sim --show N KIND K SEED   # one scenario, traced
//   build/bin/validation_sim --fabric ...           # links of a fat-tree (fabric_table.cc)
//   build/bin/validation_sim --fabric-validation ...  # the same through Validation
//                                                     # (fabric_validation_table.cc)
//   build/bin/validation_sim --sensitivity [--fleets 100] [--soak R]... [--size N]...
//       [--noise 0.02] [--describe]
//       # issue 29 item 7: detection and false-flag rates (sim.h SensitivityCase)
//
// KIND is the FaultKind index: 0 bad node, 1 mild node, 2 bad rail, 3 bad
// path, 4 dead agent, 5 flaky node, 6 mixed.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "tests/unit/validation/sim.h"

namespace eb::validation::sim {
int FabricTableMain(int argc, char** argv);            // fabric_table.cc
int FabricValidationTableMain(int argc, char** argv);  // fabric_validation_table.cc
}  // namespace eb::validation::sim

namespace {

using eb::validation::Strategy;
using namespace eb::validation::sim;

struct Row {
  int scenarios = 0, faults = 0, found = 0, confirmed = 0, explained = 0, blamed = 0;
  int errors = 0, max_rounds = 0, max_tests = 0, over_budget = 0;
  double rounds = 0, tests = 0;

  void Add(const Scenario& s, const Run& run, const Score& score) {
    ++scenarios;
    errors += !run.error.empty();
    for (const KindScore& ks : score.by_kind) {
      faults += ks.faults;
      found += ks.found;
      confirmed += ks.confirmed;
      explained += ks.explained;
    }
    blamed += static_cast<int>(score.healthy_blamed.size());
    rounds += run.pair_rounds;
    tests += run.pair_tests;
    max_rounds = std::max(max_rounds, run.pair_rounds);
    max_tests = std::max(max_tests, run.pair_tests);
    over_budget += run.pair_tests > (s.n + 1) / 2 + 4 * static_cast<int>(s.faults.size());
  }
};

// ceil(log2 C(n, k)): the group-testing lower bound on tests.
int GroupTestingBound(int n, int k) {
  double bits = 0;
  for (int i = 0; i < k; ++i) bits += std::log2(static_cast<double>(n - i) / (k - i));
  return static_cast<int>(std::ceil(bits - 1e-9));
}

struct Settings {
  int seeds = 10;
  double noise = 0.02;
  bool with_expected = true;
};

Scenario Make(int n, int k, FaultKind kind, int seed, const Settings& settings) {
  Scenario s = RandomScenario(n, k, kind, ScenarioSeed(n, k, kind, seed));
  s.rail_noise = settings.noise;
  s.common_noise = settings.noise / 2;
  s.with_expected = settings.with_expected;
  return s;
}

void Report(const char* what, int n, const char* kind, int k, const std::string& seed,
            const std::vector<std::string>& lines) {
  for (const std::string& line : lines) {
    std::fprintf(stderr, "N=%d %s k=%d seed=%s %s %s\n", n, kind, k, seed.c_str(), what,
                 line.c_str());
  }
}

// The sensitivity table: per N, soak repeats and case, `fleets` seeded
// fleets; found (fault cases), fleets with any false flag, and the rounds
// and tests it took. The first false flags of each row go to stderr.
int SensitivityMain(int argc, char** argv) {
  int fleets = 100;
  bool describe = false;  // every miss and false flag's fleet, described, to stderr
  double noise = 0.02;    // rail noise (sigma); the common noise is half of it
  std::vector<int> sizes, soaks;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--fleets" && i + 1 < argc) {
      fleets = std::atoi(argv[++i]);
    } else if (arg == "--size" && i + 1 < argc) {
      sizes.push_back(std::atoi(argv[++i]));
    } else if (arg == "--soak" && i + 1 < argc) {
      soaks.push_back(std::atoi(argv[++i]));
    } else if (arg == "--noise" && i + 1 < argc) {
      noise = std::atof(argv[++i]);
    } else if (arg == "--describe") {
      describe = true;
    } else {
      std::fprintf(stderr,
                   "usage: validation_sim --sensitivity [--fleets F] [--size N]... [--soak R]... "
                   "[--noise SIGMA] [--describe]\n");
      return 2;
    }
  }
  if (sizes.empty()) sizes = {16, 232, 1024};
  if (soaks.empty()) soaks = {0, 8};
  std::printf("Rail noise %.1f%% and common noise %.1f%% (sigma), %d fleets per row.\n\n",
              noise * 100, noise * 50, fleets);
  std::printf(
      "| N | case | soak repeats | fleets | found | fleets with a false flag | false flags | "
      "pair rounds mean / max | pair tests mean / max |\n|---|---|---|---|---|---|---|---|---|\n");
  int errors = 0;
  for (int n : sizes) {
    for (int soak : soaks) {
      for (SensitivityCase c :
           {SensitivityCase::kHealthy, SensitivityCase::kRail10, SensitivityCase::kFlaky20}) {
        int found = 0, flagged = 0, flags = 0, max_rounds = 0, max_tests = 0, shown = 0;
        double rounds = 0, tests = 0;
        for (int index = 1; index <= fleets; ++index) {
          Scenario s = SensitivityScenario(n, c, index, soak);
          s.rail_noise = noise;
          s.common_noise = noise / 2;
          std::vector<std::string> trace;
          const Run run = RunScenario(s, describe ? &trace : nullptr);
          const SensitivityScore score = ScoreSensitivity(s, run);
          if (!run.error.empty()) {
            ++errors;
            std::fprintf(stderr, "N=%d %s fleet %d error: %s\n", n, SensitivityCaseName(c), index,
                         run.error.c_str());
          }
          found += score.found;
          flagged += !score.false_flags.empty();
          flags += static_cast<int>(score.false_flags.size());
          rounds += run.pair_rounds;
          tests += run.pair_tests;
          max_rounds = std::max(max_rounds, run.pair_rounds);
          max_tests = std::max(max_tests, run.pair_tests);
          if (describe &&
              (!score.false_flags.empty() || (c != SensitivityCase::kHealthy && !score.found))) {
            std::fprintf(stderr, "N=%d soak=%d %s fleet %d:\n", n, soak, SensitivityCaseName(c),
                         index);
            for (const std::string& line : trace) std::fprintf(stderr, "  %s\n", line.c_str());
            std::fprintf(stderr, "%s\n", Describe(s, run).c_str());
          }
          if (!score.false_flags.empty() && shown++ < 3) {
            std::fprintf(stderr, "N=%d soak=%d %s fleet %d false flag: %s\n", n, soak,
                         SensitivityCaseName(c), index, score.false_flags.front().c_str());
          }
        }
        char found_text[64] = "-";
        if (c != SensitivityCase::kHealthy) {
          std::snprintf(found_text, sizeof found_text, "%d (%.1f%%)", found,
                        100.0 * found / fleets);
        }
        std::printf("| %d | %s | %d | %d | %s | %d (%.1f%%) | %d | %.2f / %d | %.1f / %d |\n", n,
                    SensitivityCaseName(c), soak, fleets, found_text, flagged,
                    100.0 * flagged / fleets, flags, rounds / fleets, max_rounds, tests / fleets,
                    max_tests);
        std::fflush(stdout);
      }
    }
  }
  return errors == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--fabric") return FabricTableMain(argc, argv);
  if (argc > 1 && std::string(argv[1]) == "--fabric-validation") {
    return FabricValidationTableMain(argc, argv);
  }
  if (argc > 1 && std::string(argv[1]) == "--sensitivity") return SensitivityMain(argc, argv);
  Settings settings;
  int all_pairs_up_to = 232;
  bool detail = false;
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--seeds" && i + 1 < argc) {
      settings.seeds = std::atoi(argv[++i]);
    } else if (arg == "--noise" && i + 1 < argc) {
      settings.noise = std::atof(argv[++i]);
    } else if (arg == "--no-expected") {
      settings.with_expected = false;
    } else if (arg == "--size" && i + 1 < argc) {
      sizes.push_back(std::atoi(argv[++i]));
    } else if (arg == "--all-pairs-up-to" && i + 1 < argc) {
      all_pairs_up_to = std::atoi(argv[++i]);
    } else if (arg == "--detail") {
      detail = true;
    } else if (arg == "--show" && i + 4 < argc) {
      const Scenario s =
          Make(std::atoi(argv[i + 1]), std::atoi(argv[i + 3]),
               static_cast<FaultKind>(std::atoi(argv[i + 2])), std::atoi(argv[i + 4]), settings);
      std::vector<std::string> trace;
      const Run run = RunScenario(s, &trace);
      for (const std::string& line : trace) std::printf("%s\n", line.c_str());
      std::printf("%s", Describe(s, run).c_str());
      return 0;
    } else {
      std::fprintf(stderr,
                   "usage: validation_sim [--seeds N] [--noise SIGMA] [--no-expected] "
                   "[--size N]... [--all-pairs-up-to N] [--detail] [--show N KIND K SEED]\n");
      return 2;
    }
  }
  if (sizes.empty()) sizes = {2, 3, 16, 232, 1024};
  const std::vector<FaultKind> kinds = {FaultKind::kNode, FaultKind::kRail,  FaultKind::kPath,
                                        FaultKind::kDead, FaultKind::kFlaky, FaultKind::kMild,
                                        FaultKind::kMixed};
  std::printf(
      "Rail noise %.1f%% and common noise %.1f%% (sigma), %s, %d scenarios per (N, "
      "kind, k).\n\n",
      settings.noise * 100, settings.noise * 50,
      settings.with_expected ? "expected figures given" : "no expected figures", settings.seeds);

  std::map<std::pair<int, int>, Row> bad_nodes;  // (n, k) of kNode, for the anchors table
  std::vector<std::string> summary, detailed;
  Row total;
  for (int n : sizes) {
    for (FaultKind kind : kinds) {
      Row row;
      for (int k = kind == FaultKind::kNode ? 0 : 1; k <= std::min(5, n); ++k) {
        Row per_k;
        for (int seed = 1; seed <= settings.seeds; ++seed) {
          const Scenario s = Make(n, k, kind, seed, settings);
          const Run run = RunScenario(s);
          const Score score = ScoreRun(s, run);
          per_k.Add(s, run, score);
          if (k > 0) row.Add(s, run, score);  // the healthy row stands alone
          total.Add(s, run, score);
          if (!run.error.empty())
            Report("error", n, FaultKindName(kind), k, std::to_string(seed), {run.error});
          Report("blamed", n, FaultKindName(kind), k, std::to_string(seed), score.healthy_blamed);
          Report("missed", n, FaultKindName(kind), k, std::to_string(seed), score.missed);
          Report("imprecise", n, FaultKindName(kind), k, std::to_string(seed), score.imprecise);
        }
        if (kind == FaultKind::kNode) bad_nodes[{n, k}] = per_k;
        char line[512];
        std::snprintf(line, sizeof line,
                      "| %d | %s | %d | %d | %d/%d | %d | %d | %d | %.2f / %d | %.1f / %d | %d |",
                      n, k == 0 ? "none (healthy)" : FaultKindName(kind), k, per_k.scenarios,
                      per_k.found, per_k.faults, per_k.confirmed, per_k.explained, per_k.blamed,
                      per_k.rounds / per_k.scenarios, per_k.max_rounds,
                      per_k.tests / per_k.scenarios, per_k.max_tests, per_k.over_budget);
        detailed.emplace_back(line);
        if (k == 0) summary.emplace_back(line);
      }
      char line[512];
      std::snprintf(line, sizeof line,
                    "| %d | %s | 1-%d | %d | %d/%d | %d | %d | %d | %.2f / %d | %.1f / %d | %d |",
                    n, FaultKindName(kind), std::min(5, n), row.scenarios, row.found, row.faults,
                    row.confirmed, row.explained, row.blamed, row.rounds / row.scenarios,
                    row.max_rounds, row.tests / row.scenarios, row.max_tests, row.over_budget);
      summary.emplace_back(line);
    }
  }
  const char* header =
      "| N | faults | k | scenarios | found | confirmed | explained | healthy blamed | pair "
      "rounds mean / max | pair tests mean / max | over N/2+4k |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n";
  std::printf("### Every fault kind\n\n%s", header);
  for (const std::string& line : detail ? detailed : summary) std::printf("%s\n", line.c_str());

  std::printf(
      "\n### Bad nodes against the anchors\n\n"
      "| N | k | ours: pair rounds mean / max | ours: pair tests mean / max | N/2+4k | "
      "all-pairs: rounds / tests | NVCRE (published, 232 nodes) | group testing: tests "
      "at least |\n|---|---|---|---|---|---|---|---|\n");
  for (const auto& [key, row] : bad_nodes) {
    const auto [n, k] = key;
    if (n < 16) continue;
    const std::string nvcre = n != 232 ? "-" : k == 0 ? "3 rounds" : "7 rounds, 22-57 tests";
    std::printf("| %d | %d | %.2f / %d | %.1f / %d | %d | %d / %d | %s | %d |\n", n, k,
                row.rounds / row.scenarios, row.max_rounds, row.tests / row.scenarios,
                row.max_tests, n / 2 + 4 * k, n % 2 == 0 ? n - 1 : n, n * (n - 1) / 2,
                nvcre.c_str(), GroupTestingBound(n, k));
  }

  std::printf(
      "\n### All-pairs, run\n\n| N | bad nodes | found | healthy blamed | pair rounds | "
      "pair tests |\n|---|---|---|---|---|---|\n");
  for (int n : sizes) {
    if (n > all_pairs_up_to) continue;
    for (int k = 0; k <= std::min(2, n); ++k) {
      Scenario s = Make(n, k, FaultKind::kNode, 1, settings);
      s.strategy = Strategy::kAllPairs;
      const Run run = RunScenario(s);
      const Score score = ScoreRun(s, run);
      total.errors += !run.error.empty();
      std::printf("| %d | %d | %d/%d | %zu | %d | %d |\n", n, k, score.by_kind[0].found,
                  score.by_kind[0].faults, score.healthy_blamed.size(), run.pair_rounds,
                  run.pair_tests);
    }
  }
  std::printf(
      "\n%d scenarios, %d faults injected, %d found, %d explained, %d healthy nodes "
      "blamed, %d errors\n",
      total.scenarios, total.faults, total.found, total.explained, total.blamed, total.errors);
  return total.errors == 0 ? 0 : 1;
}
