#pragma once

// The command line of validation_sim's two fat-tree tables (--fabric and
// --fabric-validation): one parser, so that the two take the same options
// the same way. Numbers go through absl::SimpleAtoi: "--seeds x" is a usage
// error, not 0 fleets.

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "tests/unit/validation/fabric_sim.h"

namespace eb::validation::sim {

struct FabricTableArgs {
  int seeds = 0;
  std::vector<int> sizes;  // N per table section; the table's own default when empty
  bool noise = false;      // --noise, where the table takes it
  // --show N CASE SEED: one fleet, traced, instead of the table.
  std::optional<FabricScenario> show;
};

// argv[2...] of `validation_sim --fabric...`; nullopt (after printing
// `usage` to stderr) for an unknown option, a missing value or a value that
// is not a number.
inline std::optional<FabricTableArgs> ParseFabricTableArgs(int argc, char** argv, int default_seeds,
                                                           bool takes_noise, const char* usage) {
  FabricTableArgs args;
  args.seeds = default_seeds;
  auto number = [&](int at, int& out) { return at < argc && absl::SimpleAtoi(argv[at], &out); };
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    int n = 0, c = 0, seed = 0;
    if (arg == "--seeds" && number(i + 1, args.seeds)) {
      ++i;
    } else if (arg == "--size" && number(i + 1, n)) {
      args.sizes.push_back(n);
      ++i;
    } else if (arg == "--noise" && takes_noise) {
      args.noise = true;
    } else if (arg == "--show" && number(i + 1, n) && number(i + 2, c) && number(i + 3, seed)) {
      const auto fabric_case = static_cast<FabricCase>(c);
      args.show = RandomFabricScenario(n, fabric_case, FabricScenarioSeed(n, fabric_case, seed));
      i += 3;
    } else {
      std::fprintf(stderr, "usage: %s\n", usage);
      return std::nullopt;
    }
  }
  return args;
}

}  // namespace eb::validation::sim
