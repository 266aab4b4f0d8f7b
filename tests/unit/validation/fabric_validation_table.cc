// validation_sim --fabric-validation: issue 31's table through the whole
// validation core (Validation: intra, the node localizer's pair rounds,
// link rounds, the report's links/rails/paths/nodes), not only the link
// core that --fabric runs. Simulated rail-optimized fat-trees
// (fabric_sim.h: 8 x 400G rails, leaves of 16 or 32 nodes a rail, 4, 8 or
// 16 spines a rail drawn per fleet) answered by the scripted fleet
// (scripted_fleet.h: a rail's busbw is 46.5 GB/s times the slowest link of
// its path, d-mod-k routing, with its deterministic +-0.4 % wobble), graded
// against the shipped figures; every fleet is run again without its link
// faults for "extra rounds". Deterministic.
//
//   build/bin/validation_sim --fabric-validation [--seeds 20] [--size N]...
//   build/bin/validation_sim --fabric-validation [--noise] --show N CASE SEED  # one fleet
//
// --noise adds fabric_sim.h's random noise to every rail (the false-positive
// rows of BENCHMARKS.md: the links' slow line is 1 - tolerance).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "coordinator/topology/paths.h"
#include "tests/unit/validation/fabric_sim.h"
#include "tests/unit/validation/fabric_table_args.h"
#include "tests/unit/validation/fleet_fixture.h"
#include "tests/unit/validation/scripted_fleet.h"

namespace eb::validation::sim {
namespace {

using test::Outcome;
using test::RunToEnd;
using test::Script;

// With `noisy`, each rail of each pair test is also multiplied by the
// scenario's normal noise (fabric_sim.h: 1 % a test, 2 % a rail, sigma),
// drawn per call from the seed; the script takes the lower of it and its
// other factors, so only the downward half acts: the half that makes a
// healthy rail look slow.
test::Outcome RunFabricThroughValidation(const FabricScenario& s, bool noisy = false) {
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
  Script script;
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
  return RunToEnd(std::move(nodes), std::move(options), std::move(script));
}

struct LinkScore {
  int uplinks = 0, exact = 0, within_two = 0;
  int others = 0, others_found = 0;
  int blamed = 0;  // node or rail verdicts on a node without a fault
  int wrong = 0;   // links named that hold no fault
};

LinkScore LinkScoreOf(const FabricScenario& s, const Outcome& out) {
  const topology::FabricIndex& index = SimIndexOf(s.shape);
  const ValidationReport& r = out.report;
  LinkScore score;
  std::set<std::string> faulty_nodes;
  std::set<std::pair<std::string, std::string>> faulty_uplinks;
  for (const LinkFault& f : s.faults) {
    if (f.kind == LinkFaultKind::kCable || f.kind == LinkFaultKind::kNode ||
        f.kind == LinkFaultKind::kRail) {
      faulty_nodes.insert(index.NodeName(f.node));
    }
    if (f.kind == LinkFaultKind::kUplink) {
      const topology::Link& l = index.links()[f.link];
      faulty_uplinks.insert({index.SwitchName(l.leaf), index.SwitchName(l.spine)});
    }
  }
  for (const NodeVerdict& v : r.nodes) {
    if (v.verdict != Verdict::kHealthy && faulty_nodes.count(v.node) == 0) ++score.blamed;
  }
  for (const RailVerdict& v : r.rails) {
    if (faulty_nodes.count(v.node) == 0) ++score.blamed;
  }
  // A link named is wrong unless it is a faulty uplink or one of a set
  // that no pair can tell apart and that holds one.
  std::set<std::string> faulty_described;
  for (const LinkFault& f : s.faults) {
    if (f.kind == LinkFaultKind::kUplink) faulty_described.insert(index.Describe(f.link));
  }
  for (const LinkVerdict& v : r.links) {
    if (faulty_uplinks.count({v.a.switch_name, v.b.switch_name}) != 0) continue;
    const bool with_fault =
        std::any_of(v.inseparable_from.begin(), v.inseparable_from.end(),
                    [&](const std::string& other) { return faulty_described.count(other) != 0; });
    if (!with_fault) ++score.wrong;
  }
  for (const LinkFault& f : s.faults) {
    switch (f.kind) {
      case LinkFaultKind::kUplink: {
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
          break;
        }
        break;
      }
      case LinkFaultKind::kCable: {
        ++score.others;
        score.others_found += std::any_of(r.rails.begin(), r.rails.end(), [&](const auto& v) {
          return v.node == index.NodeName(f.node) && v.rail == f.rail;
        });
        break;
      }
      case LinkFaultKind::kCollision: {
        ++score.others;
        const std::set<std::string> pair = {index.NodeName(f.node), index.NodeName(f.other)};
        score.others_found += std::any_of(r.paths.begin(), r.paths.end(), [&](const auto& p) {
          return p.routing_collision && std::set<std::string>{p.a, p.b} == pair &&
                 p.rails == std::vector<int>{f.rail};
        });
        break;
      }
      case LinkFaultKind::kNode: {
        ++score.others;
        score.others_found += std::any_of(r.nodes.begin(), r.nodes.end(), [&](const auto& v) {
          return v.node == index.NodeName(f.node) && v.verdict != Verdict::kHealthy;
        });
        break;
      }
      case LinkFaultKind::kRail: {
        ++score.others;
        score.others_found += std::any_of(r.rails.begin(), r.rails.end(), [&](const auto& v) {
          return v.node == index.NodeName(f.node) && v.rail == f.rail;
        });
        break;
      }
    }
  }
  return score;
}

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
    const Outcome out = RunFabricThroughValidation(s, noisy);
    std::printf("N=%d, leaves of %d, %d spines a rail, %s%s\n", s.shape.n, s.shape.leaf_size,
                s.shape.spines, FabricCaseName(s.fault_case), out.error.c_str());
    for (const Round& round : out.rounds) {
      std::printf("round %d (%s %d): %zu tests, first: %s\n", round.number,
                  TestKindName(round.kind).c_str(), round.suite_round, round.tests.size(),
                  round.tests.empty() ? "" : round.tests.front().purpose.c_str());
    }
    for (const LinkVerdict& v : out.report.links) {
      std::printf("link %s - %s: %s\n", v.a.switch_name.c_str(), v.b.switch_name.c_str(),
                  v.reason.c_str());
    }
    return 0;
  }
  const int seeds = args->seeds;
  std::vector<int> sizes = args->sizes;
  if (sizes.empty()) sizes = {64, 256};
  const FabricCase cases[] = {FabricCase::kNone,    FabricCase::kUplink50,  FabricCase::kUplink80,
                              FabricCase::kCable50, FabricCase::kCollision, FabricCase::kTwoFaults,
                              FabricCase::kNode,    FabricCase::kRail};
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
    for (FabricCase c : cases) {
      LinkScore total;
      int fleets = 0, errors = 0, max_rounds = 0, max_extra = 0;
      double rounds = 0, extra = 0, seconds = 0;
      for (int seed = 1; seed <= seeds; ++seed) {
        const FabricScenario s = RandomFabricScenario(n, c, FabricScenarioSeed(n, c, seed));
        const auto start = std::chrono::steady_clock::now();
        const Outcome out = RunFabricThroughValidation(s, noisy);
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const Outcome baseline = RunFabricThroughValidation(WithoutLinkFaults(s), noisy);
        ++fleets;
        if (!out.error.empty() || !baseline.error.empty()) {
          ++errors;
          std::fprintf(stderr, "N=%d %s seed=%d error: %s%s\n", n, FabricCaseName(c), seed,
                       out.error.c_str(), baseline.error.c_str());
          continue;
        }
        const int r = static_cast<int>(out.rounds.size());
        const int more = r - static_cast<int>(baseline.rounds.size());
        rounds += r;
        extra += more;
        max_rounds = std::max(max_rounds, r);
        max_extra = std::max(max_extra, more);
        const LinkScore score = LinkScoreOf(s, out);
        total.uplinks += score.uplinks;
        total.exact += score.exact;
        total.within_two += score.within_two;
        total.others += score.others;
        total.others_found += score.others_found;
        total.blamed += score.blamed;
        total.wrong += score.wrong;
        if (score.blamed > 0 || score.wrong > 0 || score.exact + score.within_two < score.uplinks ||
            score.others_found < score.others) {
          std::fprintf(stderr,
                       "N=%d %s seed=%d: exact %d within %d of %d, found %d of %d, "
                       "blamed %d, wrong %d\n",
                       n, FabricCaseName(c), seed, score.exact, score.within_two, score.uplinks,
                       score.others_found, score.others, score.blamed, score.wrong);
        }
      }
      auto cell = [](int part, int whole) {
        return whole == 0 ? std::string("-") : std::to_string(part) + "/" + std::to_string(whole);
      };
      const int ok = fleets - errors;
      std::printf("| %d | %s | %d | %s | %s | %s | %d | %d | %.2f / %d | %.2f / %d | %d | %.2f |\n",
                  n, FabricCaseName(c), fleets, cell(total.exact, total.uplinks).c_str(),
                  cell(total.within_two, total.uplinks).c_str(),
                  cell(total.others_found, total.others).c_str(), total.blamed, total.wrong,
                  ok > 0 ? rounds / ok : 0.0, max_rounds, ok > 0 ? extra / ok : 0.0, max_extra,
                  errors, seconds / fleets);
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace eb::validation::sim
