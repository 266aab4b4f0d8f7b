#include "tests/unit/validation/fabric_sim.h"

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/topology/link_localization.h"
#include "coordinator/topology/paths.h"

namespace eb::validation::sim {
namespace {

using topology::FabricIndex;
using topology::LinkKind;
using topology::Routing;

constexpr Routing kSimRouting = Routing::kDestinationModK;

std::string LeafName(int rail, int leaf) { return absl::StrFormat("leaf-r%d-%02d", rail, leaf); }
std::string SpineName(int rail, int spine) {
  return absl::StrFormat("spine-r%d-%02d", rail, spine);
}

// Built once per shape (a 1,024-node index is 8,192 cables: building it
// for every run was a quarter of the simulation's time). Single-threaded.
const FabricIndex& IndexOf(const FabricShape& shape) {
  static std::map<std::tuple<int, int, int, int>, std::unique_ptr<FabricIndex>> built;
  std::unique_ptr<FabricIndex>& index =
      built[{shape.n, shape.rails, shape.leaf_size, shape.spines}];
  if (index == nullptr) {
    index = std::make_unique<FabricIndex>(SimFabric(shape), SimNodeNames(shape.n));
  }
  return *index;
}

int RandomUplink(const FabricIndex& index, const FabricShape& shape, std::mt19937_64& rng) {
  const int leaves = (shape.n + shape.leaf_size - 1) / shape.leaf_size;
  const int rail = std::uniform_int_distribution<int>(0, shape.rails - 1)(rng);
  const int leaf = std::uniform_int_distribution<int>(0, leaves - 1)(rng);
  const int spine = std::uniform_int_distribution<int>(0, shape.spines - 1)(rng);
  return index.UplinkOf(index.SwitchIdOf(LeafName(rail, leaf)),
                        index.SwitchIdOf(SpineName(rail, spine)));
}

LinkFault UplinkFault(const FabricIndex& index, const FabricShape& shape, double factor,
                      std::mt19937_64& rng) {
  LinkFault f;
  f.kind = LinkFaultKind::kUplink;
  f.link = RandomUplink(index, shape, rng);
  f.factor = factor;
  return f;
}

LinkFault CableFault(const FabricIndex& index, const FabricShape& shape, LinkFaultKind kind,
                     double factor, std::mt19937_64& rng) {
  LinkFault f;
  f.kind = kind;
  f.node = std::uniform_int_distribution<int>(0, shape.n - 1)(rng);
  f.rail = std::uniform_int_distribution<int>(0, shape.rails - 1)(rng);
  f.link = index.CableOf(f.node, f.rail);
  f.factor = factor;
  return f;
}

// The true factor of a pair's rail: the slowest thing on its path.
double TrueFactor(const FabricScenario& s, const FabricIndex& index,
                  const std::vector<double>& link_factor, int a, int b, int rail) {
  double factor = 1;
  for (int link : index.Path(a, b, rail, kSimRouting).links) {
    factor = std::min(factor, link_factor[link]);
  }
  for (const LinkFault& f : s.faults) {
    if (f.kind == LinkFaultKind::kCollision && f.rail == rail &&
        ((f.node == a && f.other == b) || (f.node == b && f.other == a))) {
      factor = std::min(factor, f.factor);
    }
  }
  return factor;
}

}  // namespace

const char* FabricCaseName(FabricCase c) {
  switch (c) {
    case FabricCase::kNone:
      return "no fault";
    case FabricCase::kUplink50:
      return "uplink at 50 %";
    case FabricCase::kUplink80:
      return "uplink at 80 %";
    case FabricCase::kCable50:
      return "node-side cable at 50 %";
    case FabricCase::kCollision:
      return "routing collision";
    case FabricCase::kTwoFaults:
      return "two link faults";
    case FabricCase::kNode:
      return "bad node";
    case FabricCase::kRail:
      return "bad rail";
  }
  return "?";
}

std::vector<std::string> SimNodeNames(int n) {
  std::vector<std::string> names;
  names.reserve(n);
  for (int i = 0; i < n; ++i) names.push_back(absl::StrFormat("node%04d", i));
  return names;
}

topology::Fabric SimFabric(const FabricShape& shape) {
  topology::Fabric fabric;
  const int leaves = (shape.n + shape.leaf_size - 1) / shape.leaf_size;
  const std::vector<std::string> names = SimNodeNames(shape.n);
  for (int rail = 0; rail < shape.rails; ++rail) {
    for (int j = 0; j < shape.n; ++j) {
      fabric.cables.push_back({names[j], absl::StrCat("mlx5_", rail), rail,
                               LeafName(rail, j / shape.leaf_size), j % shape.leaf_size + 1});
    }
    for (int leaf = 0; leaf < leaves; ++leaf) {
      for (int spine = 0; spine < shape.spines; ++spine) {
        fabric.uplinks.push_back(
            {LeafName(rail, leaf), shape.leaf_size + spine + 1, SpineName(rail, spine), leaf + 1});
      }
    }
  }
  return fabric;
}

uint64_t FabricScenarioSeed(int n, FabricCase fault_case, int index) {
  return 0x5eed0000ULL + static_cast<uint64_t>(n) * 1000003ULL +
         static_cast<uint64_t>(fault_case) * 7919ULL + static_cast<uint64_t>(index) * 104729ULL;
}

FabricScenario RandomFabricScenario(int n, FabricCase fault_case, uint64_t seed) {
  std::mt19937_64 rng(seed);
  FabricScenario s;
  s.seed = seed;
  s.fault_case = fault_case;
  s.shape.n = n;
  s.shape.leaf_size = std::uniform_int_distribution<int>(0, 1)(rng) == 0 ? 16 : 32;
  const int spine_choices[] = {4, 8, 16};
  s.shape.spines = spine_choices[std::uniform_int_distribution<int>(0, 2)(rng)];
  s.shape.spines = std::min(s.shape.spines, s.shape.leaf_size);
  const FabricIndex& index = IndexOf(s.shape);
  std::uniform_real_distribution<double> uniform(0, 1);
  switch (fault_case) {
    case FabricCase::kNone:
      break;
    case FabricCase::kUplink50:
      s.faults.push_back(UplinkFault(index, s.shape, 0.5, rng));
      break;
    case FabricCase::kUplink80:
      s.faults.push_back(UplinkFault(index, s.shape, 0.8, rng));
      break;
    case FabricCase::kCable50:
      s.faults.push_back(CableFault(index, s.shape, LinkFaultKind::kCable, 0.5, rng));
      break;
    case FabricCase::kCollision: {
      // On a pair that round 1 tests: a pair never tested together cannot
      // collide in any test.
      const auto pairs = topology::PlanFirstLinkRound(index);
      const auto& pair = pairs[std::uniform_int_distribution<size_t>(0, pairs.size() - 1)(rng)];
      LinkFault f;
      f.kind = LinkFaultKind::kCollision;
      f.node = pair.a;
      f.other = pair.b;
      f.rail = std::uniform_int_distribution<int>(0, s.shape.rails - 1)(rng);
      f.factor = 0.5;
      s.faults.push_back(f);
      break;
    }
    case FabricCase::kTwoFaults: {
      const int first = std::uniform_int_distribution<int>(0, 2)(rng);
      int second = std::uniform_int_distribution<int>(0, 1)(rng);
      if (second >= first) ++second;
      for (int which : {first, second}) {
        for (int attempt = 0; attempt < 100; ++attempt) {
          LinkFault f = which == 0   ? UplinkFault(index, s.shape, 0.5, rng)
                        : which == 1 ? UplinkFault(index, s.shape, 0.8, rng)
                                     : CableFault(index, s.shape, LinkFaultKind::kCable, 0.5, rng);
          const bool taken = std::any_of(s.faults.begin(), s.faults.end(),
                                         [&](const LinkFault& o) { return o.link == f.link; });
          if (taken) continue;
          s.faults.push_back(f);
          break;
        }
      }
      break;
    }
    case FabricCase::kNode: {
      LinkFault f;
      f.kind = LinkFaultKind::kNode;
      f.node = std::uniform_int_distribution<int>(0, n - 1)(rng);
      f.factor = 0.3 + 0.5 * uniform(rng);
      s.faults.push_back(f);
      break;
    }
    case FabricCase::kRail:
      s.faults.push_back(
          CableFault(index, s.shape, LinkFaultKind::kRail, 0.3 + 0.4 * uniform(rng), rng));
      break;
  }
  return s;
}

const FabricIndex& SimIndexOf(const FabricShape& shape) { return IndexOf(shape); }

double ScenarioFactor(const FabricScenario& s, int a, int b, int rail) {
  const FabricIndex& index = IndexOf(s.shape);
  double factor = 1;
  for (int link : index.Path(a, b, rail, kSimRouting).links) {
    for (const LinkFault& f : s.faults) {
      const bool node_cable = f.kind == LinkFaultKind::kNode &&
                              index.links()[link].node == f.node &&
                              index.links()[link].kind == LinkKind::kCable;
      if (f.link == link || node_cable) factor = std::min(factor, f.factor);
    }
  }
  for (const LinkFault& f : s.faults) {
    if (f.kind == LinkFaultKind::kCollision && f.rail == rail &&
        ((f.node == a && f.other == b) || (f.node == b && f.other == a))) {
      factor = std::min(factor, f.factor);
    }
  }
  return factor;
}

FabricScenario WithoutLinkFaults(const FabricScenario& scenario) {
  FabricScenario out = scenario;
  out.faults.clear();
  for (const LinkFault& f : scenario.faults) {
    if (!f.IsLinkFault()) out.faults.push_back(f);
  }
  return out;
}

FabricRun RunFabricScenario(const FabricScenario& s, std::vector<std::string>* trace) {
  const FabricIndex& index = IndexOf(s.shape);
  std::vector<double> link_factor(index.links().size(), 1.0);
  for (const LinkFault& f : s.faults) {
    if (f.link >= 0) link_factor[f.link] = std::min(link_factor[f.link], f.factor);
    if (f.kind == LinkFaultKind::kNode) {
      for (int rail = 0; rail < index.rail_count(); ++rail) {
        const int cable = index.CableOf(f.node, rail);
        link_factor[cable] = std::min(link_factor[cable], f.factor);
      }
    }
  }
  std::mt19937_64 rng(s.seed ^ 0x9e3779b97f4a7c15ULL);
  std::normal_distribution<double> rail_noise(0, s.rail_noise), common_noise(0, s.common_noise);
  FabricRun run;
  std::vector<topology::LinkPlannedPair> pairs = topology::PlanFirstLinkRound(index);
  topology::LinkAssessment assessment;
  topology::LinkPlan plan;
  while (!pairs.empty() && run.rounds < s.max_rounds) {
    ++run.rounds;
    for (const topology::LinkPlannedPair& pair : pairs) {
      ++run.tests;
      const double common = 1 + common_noise(rng);
      if (trace != nullptr) {
        trace->push_back(absl::StrCat("round ", run.rounds, ": ", index.NodeName(pair.a), " + ",
                                      index.NodeName(pair.b), " (", pair.purpose, ")"));
      }
      for (int rail = 0; rail < index.rail_count(); ++rail) {
        topology::LinkObservation o;
        o.a = pair.a;
        o.b = pair.b;
        o.rail = rail;
        o.round = run.rounds;
        o.test_id = run.tests;
        o.ratio = TrueFactor(s, index, link_factor, pair.a, pair.b, rail) * common *
                  (1 + rail_noise(rng));
        o.slow = o.ratio < 1 - s.tolerance;
        if (o.slow && trace != nullptr) {
          trace->push_back(absl::StrFormat("  rail %d slow: %.2f", rail, o.ratio));
        }
        run.observations.push_back(o);
      }
    }
    assessment = topology::AssessLinks(index, kSimRouting, run.observations);
    plan = topology::PlanLinkRound(index, kSimRouting, run.observations, assessment);
    pairs = plan.pairs;
  }
  run.report = topology::JudgeLinks(index, run.observations, assessment, plan);
  run.described = topology::DescribeLinkReport(index, run.report);
  return run;
}

FabricScore ScoreFabricRun(const FabricScenario& s, const FabricRun& run) {
  const FabricIndex& index = IndexOf(s.shape);
  FabricScore score;
  std::set<int> faulty_nodes, faulty_links;
  for (const LinkFault& f : s.faults) {
    if (f.kind == LinkFaultKind::kCable || f.kind == LinkFaultKind::kRail ||
        f.kind == LinkFaultKind::kNode) {
      faulty_nodes.insert(f.node);
    }
    if (f.link >= 0) faulty_links.insert(f.link);
  }
  const topology::LinkReport& r = run.report;
  for (const topology::NodeLinkVerdict& v : r.nodes) {
    if (faulty_nodes.count(v.node) == 0) score.healthy_blamed.push_back(index.NodeName(v.node));
  }
  for (const topology::RailVerdict& v : r.rails) {
    if (faulty_nodes.count(v.node) == 0) {
      score.healthy_blamed.push_back(absl::StrCat(index.NodeName(v.node), " rail ", v.rail));
    }
  }
  for (const topology::LinkVerdict& v : r.links) {
    if (faulty_links.count(v.link) == 0) score.wrong_links.push_back(index.Describe(v.link));
  }
  for (const topology::InseparableVerdict& v : r.inseparable) {
    const bool holds = std::any_of(v.links.begin(), v.links.end(),
                                   [&](int link) { return faulty_links.count(link) != 0; });
    if (!holds) score.wrong_links.push_back(absl::StrCat("a set of ", v.links.size(), " links"));
  }
  for (const LinkFault& f : s.faults) {
    switch (f.kind) {
      case LinkFaultKind::kUplink: {
        ++score.link_faults;
        const bool exact =
            std::any_of(r.links.begin(), r.links.end(),
                        [&](const topology::LinkVerdict& v) { return v.link == f.link; });
        const bool within = std::any_of(
            r.inseparable.begin(), r.inseparable.end(), [&](const topology::InseparableVerdict& v) {
              return v.links.size() <= 2 &&
                     std::find(v.links.begin(), v.links.end(), f.link) != v.links.end();
            });
        score.named_exactly += exact;
        score.within_two += !exact && within;
        if (!exact && !within) score.missed.push_back(index.Describe(f.link));
        break;
      }
      case LinkFaultKind::kCable:
      case LinkFaultKind::kRail: {
        ++score.other_faults;
        const bool found = std::any_of(r.rails.begin(), r.rails.end(), [&](const auto& v) {
          return v.node == f.node && v.rail == f.rail;
        });
        score.other_found += found;
        if (!found) score.missed.push_back(index.Describe(f.link));
        break;
      }
      case LinkFaultKind::kNode: {
        ++score.other_faults;
        const bool found = std::any_of(r.nodes.begin(), r.nodes.end(),
                                       [&](const auto& v) { return v.node == f.node; });
        score.other_found += found;
        if (!found) score.missed.push_back(absl::StrCat("node ", index.NodeName(f.node)));
        break;
      }
      case LinkFaultKind::kCollision: {
        ++score.other_faults;
        const bool found =
            std::any_of(r.collisions.begin(), r.collisions.end(), [&](const auto& v) {
              return v.confirmed && v.rail == f.rail &&
                     std::min(v.a, v.b) == std::min(f.node, f.other) &&
                     std::max(v.a, v.b) == std::max(f.node, f.other);
            });
        score.other_found += found;
        if (!found) {
          score.missed.push_back(absl::StrCat("collision ", index.NodeName(f.node), " - ",
                                              index.NodeName(f.other), " rail ", f.rail));
        }
        break;
      }
    }
  }
  return score;
}

}  // namespace eb::validation::sim
