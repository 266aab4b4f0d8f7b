// validation_sim --fabric: the table of docs/BENCHMARKS.md "Links of a
// fat-tree, simulated" (issue 31): the link localization against simulated
// rail-optimized fat-trees (fabric_sim.h) for N = 64, 256, 1,024 and every
// FabricCase, `--seeds` fleets each, against the same fleet without its
// link faults. Deterministic.
//
//   build/bin/validation_sim --fabric [--seeds 100] [--size N]...
//   build/bin/validation_sim --fabric --show N CASE SEED   # one fleet, traced

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/unit/validation/fabric_sim.h"
#include "tests/unit/validation/fabric_table_args.h"

namespace eb::validation::sim {

int FabricTableMain(int argc, char** argv) {
  const std::optional<FabricTableArgs> args = ParseFabricTableArgs(
      argc, argv, /*default_seeds=*/100, /*takes_noise=*/false,
      "validation_sim --fabric [--seeds N] [--size N]... [--show N CASE SEED]");
  if (!args.has_value()) return 2;
  if (args->show.has_value()) {
    const FabricScenario& s = *args->show;
    std::vector<std::string> trace;
    const FabricRun run = RunFabricScenario(s, &trace);
    std::printf("N=%d, leaves of %d, %d spines a rail, %s\n", s.shape.n, s.shape.leaf_size,
                s.shape.spines, FabricCaseName(s.fault_case));
    for (const std::string& line : trace) std::printf("%s\n", line.c_str());
    std::printf("%d rounds, %d tests\n%s", run.rounds, run.tests, run.described.c_str());
    return 0;
  }
  const int seeds = args->seeds;
  std::vector<int> sizes = args->sizes;
  if (sizes.empty()) sizes = {64, 256, 1024};
  std::printf(
      "Rail noise 2%%, common noise 1%% (sigma); a rail is slow below 90%% of expected; routing "
      "destination-mod-k; %d fleets per row, leaves of 16 or 32 nodes a rail and 4, 8 or 16 "
      "spines a rail drawn per fleet.\n\n",
      seeds);
  std::printf(
      "| N | fault | fleets | rounds mean / max | rounds more than without the link fault, max "
      "| pair tests mean / max | uplinks named exactly | within 2, said so | other faults "
      "found | healthy nodes blamed | wrong links named |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n");
  int blamed_total = 0, wrong_total = 0, missed_total = 0;
  for (int n : sizes) {
    for (FabricCase c : kFabricCases) {
      int fleets = 0, max_rounds = 0, max_extra = 0, max_tests = 0;
      double rounds = 0, tests = 0;
      int uplinks = 0, exact = 0, within = 0, others = 0, others_found = 0, blamed = 0, wrong = 0;
      for (int seed = 1; seed <= seeds; ++seed) {
        const FabricScenario s = RandomFabricScenario(n, c, FabricScenarioSeed(n, c, seed));
        const FabricRun run = RunFabricScenario(s);
        const FabricRun baseline = RunFabricScenario(WithoutLinkFaults(s));
        const FabricScore score = ScoreFabricRun(s, run);
        ++fleets;
        rounds += run.rounds;
        tests += run.tests;
        max_rounds = std::max(max_rounds, run.rounds);
        max_tests = std::max(max_tests, run.tests);
        max_extra = std::max(max_extra, run.rounds - baseline.rounds);
        uplinks += score.link_faults;
        exact += score.named_exactly;
        within += score.within_two;
        others += score.other_faults;
        others_found += score.other_found;
        blamed += static_cast<int>(score.healthy_blamed.size());
        wrong += static_cast<int>(score.wrong_links.size());
        for (const std::string& m : score.missed) {
          std::fprintf(stderr, "N=%d %s seed=%d missed %s\n", n, FabricCaseName(c), seed,
                       m.c_str());
        }
        for (const std::string& m : score.healthy_blamed) {
          std::fprintf(stderr, "N=%d %s seed=%d blamed %s\n", n, FabricCaseName(c), seed,
                       m.c_str());
        }
        for (const std::string& m : score.wrong_links) {
          std::fprintf(stderr, "N=%d %s seed=%d wrong %s\n", n, FabricCaseName(c), seed, m.c_str());
        }
        missed_total += static_cast<int>(score.missed.size());
      }
      blamed_total += blamed;
      wrong_total += wrong;
      auto cell = [](int part, int whole) {
        return whole == 0 ? std::string("-") : std::to_string(part) + "/" + std::to_string(whole);
      };
      std::printf("| %d | %s | %d | %.2f / %d | %d | %.1f / %d | %s | %s | %s | %d | %d |\n", n,
                  FabricCaseName(c), fleets, rounds / fleets, max_rounds, max_extra, tests / fleets,
                  max_tests, cell(exact, uplinks).c_str(), cell(within, uplinks).c_str(),
                  cell(others_found, others).c_str(), blamed, wrong);
    }
  }
  std::printf("\n%d faults missed, %d healthy nodes blamed, %d wrong links named\n", missed_total,
              blamed_total, wrong_total);
  return 0;
}

}  // namespace eb::validation::sim
