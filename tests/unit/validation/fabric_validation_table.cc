// validation_sim --fabric-validation: issue 31's table through the whole
// validation core (Validation: intra, the node localizer's pair rounds,
// link rounds, the report's links/rails/paths/nodes), not only the link
// core that --fabric runs. Simulated rail-optimized fat-trees
// (fabric_sim.h: 8 x 400G rails, leaves of 16 or 32 nodes a rail, 4, 8 or
// 16 spines a rail drawn per fleet) answered by the scripted fleet
// (scripted_fleet.h: a rail's busbw is 46.5 GB/s times the slowest link of
// its path, d-mod-k routing, with its deterministic +-0.4 % wobble), graded
// against the shipped figures; every fleet is run again without its link
// faults for "extra rounds". Deterministic. The run and its score are
// fabric_validation_run.h's, which fabric_validation_sim_test asserts on
// this table's 256- and 1,024-node rows in CI.
//
//   build/bin/validation_sim --fabric-validation [--seeds 20] [--size N]...
//   build/bin/validation_sim --fabric-validation [--noise] --show N CASE SEED  # one fleet
//
// --noise adds fabric_sim.h's random noise to every rail (the false-positive
// rows of BENCHMARKS.md: the links' slow line is 1 - tolerance).

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "tests/unit/validation/fabric_sim.h"
#include "tests/unit/validation/fabric_table_args.h"
#include "tests/unit/validation/fabric_validation_run.h"

namespace eb::validation::sim {

namespace {

// The table's sums over the fleets of one row.
struct FabricValidationRow {
  FabricValidationScore total;
  int fleets = 0, errors = 0, max_rounds = 0, max_extra = 0;
  double rounds = 0, extra = 0, seconds = 0;

  void Add(const FabricValidationFleet& fleet) {
    ++fleets;
    seconds += fleet.seconds;
    if (!fleet.error.empty()) {
      ++errors;
      return;
    }
    rounds += fleet.rounds;
    extra += fleet.extra_rounds;
    max_rounds = std::max(max_rounds, fleet.rounds);
    max_extra = std::max(max_extra, fleet.extra_rounds);
    const FabricValidationScore& score = fleet.score;
    total.uplinks += score.uplinks;
    total.exact += score.exact;
    total.within_two += score.within_two;
    total.others += score.others;
    total.others_found += score.others_found;
    total.blamed += score.blamed;
    total.wrong += score.wrong;
  }

  void Print(int n, FabricCase c) const {
    auto cell = [](int part, int whole) {
      return whole == 0 ? std::string("-") : std::to_string(part) + "/" + std::to_string(whole);
    };
    const int ok = fleets - errors;
    std::printf("| %d | %s | %d | %s | %s | %s | %d | %d | %.2f / %d | %.2f / %d | %d | %.2f |\n",
                n, FabricCaseName(c), fleets, cell(total.exact, total.uplinks).c_str(),
                cell(total.within_two, total.uplinks).c_str(),
                cell(total.others_found, total.others).c_str(), total.blamed, total.wrong,
                ok > 0 ? rounds / ok : 0.0, max_rounds, ok > 0 ? extra / ok : 0.0, max_extra,
                errors, fleets > 0 ? seconds / fleets : 0.0);
    std::fflush(stdout);
  }
};

}  // namespace

int FabricValidationTableMain(int argc, char** argv) {
  const std::optional<FabricTableArgs> args =
      ParseFabricTableArgs(argc, argv, /*default_seeds=*/20, /*takes_noise=*/true,
                           "validation_sim --fabric-validation [--seeds N] [--size N]... [--noise] "
                           "[--show N CASE SEED]");
  if (!args.has_value()) return 2;
  const bool noisy = args->noise;
  if (args->show.has_value()) {
    const FabricScenario& s = *args->show;
    std::printf("%s", TraceFabricValidation(s, RunFabricThroughValidation(s, noisy)).c_str());
    return 0;
  }
  const int seeds = args->seeds;
  std::vector<int> sizes = args->sizes;
  if (sizes.empty()) sizes = {64, 256};
  std::printf(
      "Through Validation (intra, pair rounds, link rounds, report); %d fleets per row, leaves "
      "of 16 or 32 nodes a rail and 4, 8 or 16 spines a rail drawn per fleet; tolerance "
      "0.10%s.\n\n",
      seeds, noisy ? "; noise of 1 % a test and 2 % a rail (sigma)" : "");
  std::printf(
      "| N | fault | fleets | uplinks named exactly | within 2, said so | other faults found | "
      "healthy nodes blamed | wrong links named | rounds mean / max | extra rounds vs no link "
      "fault, mean / max | errors | s a fleet |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int n : sizes) {
    for (FabricCase c : kFabricCases) {
      FabricValidationRow row;
      for (int seed = 1; seed <= seeds; ++seed) {
        const FabricScenario s = RandomFabricScenario(n, c, FabricScenarioSeed(n, c, seed));
        const FabricValidationFleet fleet = RunFabricValidationFleet(s, noisy);
        row.Add(fleet);
        for (const std::string& miss : FabricValidationMisses(fleet)) {
          std::fprintf(stderr, "N=%d %s seed=%d: %s\n", n, FabricCaseName(c), seed, miss.c_str());
        }
      }
      row.Print(n, c);
    }
  }
  return 0;
}

}  // namespace eb::validation::sim
