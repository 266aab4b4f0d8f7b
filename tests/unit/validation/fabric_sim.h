#pragma once

// A simulated rail-optimized two-tier fat-tree for the link localization
// (coordinator/topology, issue 31): N nodes of 8 rails, node j on leaf
// j / leaf_size of every rail (port j mod leaf_size + 1), each leaf linked
// to every one of its rail's spines. An oracle answers each pair test per
// rail: the slowest link on the path (the fabric routes as the localizer
// assumes: destination mod k) times (1 + common noise) per test and
// (1 + rail noise) per rail, both normal; a rail is slow below 1 -
// tolerance. Deterministic for a seed. Used by link_simulation_test (the
// proof in CI) and validation_sim --fabric (the table in BENCHMARKS.md).

#include <cstdint>
#include <string>
#include <vector>

#include "coordinator/topology/fabric.h"
#include "coordinator/topology/link_report.h"
#include "coordinator/topology/paths.h"

namespace eb::validation::sim {

enum class FabricCase {
  kNone,       // no fault: the baseline
  kUplink50,   // one leaf-spine link at 50 %
  kUplink80,   // one leaf-spine link at 80 %
  kCable50,    // one node-side cable at 50 % (a rail verdict)
  kCollision,  // one pair slow on one rail only together (factor 0.5)
  kTwoFaults,  // two of: uplink at 50 %, uplink at 80 %, cable at 50 %, on distinct links
  kNode,       // a node at 0.3..0.8 on every rail (the existing kind)
  kRail,       // one rail of a node at 0.3..0.7 (the existing kind)
};
const char* FabricCaseName(FabricCase c);
inline constexpr FabricCase kFabricCases[] = {
    FabricCase::kNone,      FabricCase::kUplink50,  FabricCase::kUplink80, FabricCase::kCable50,
    FabricCase::kCollision, FabricCase::kTwoFaults, FabricCase::kNode,     FabricCase::kRail};

struct FabricShape {
  int n = 64;
  int rails = 8;
  int leaf_size = 16;  // nodes per leaf and rail
  int spines = 4;      // per rail
};

enum class LinkFaultKind { kUplink, kCable, kCollision, kNode, kRail };

struct LinkFault {
  LinkFaultKind kind = LinkFaultKind::kUplink;
  int link = -1;   // kUplink, kCable, kRail: FabricIndex id
  int node = -1;   // kCable, kRail, kNode; kCollision: one end
  int other = -1;  // kCollision: the other end
  int rail = -1;   // kCable, kRail, kCollision
  double factor = 1;
  bool IsLinkFault() const {
    return kind == LinkFaultKind::kUplink || kind == LinkFaultKind::kCable ||
           kind == LinkFaultKind::kCollision;
  }
};

struct FabricScenario {
  FabricShape shape;
  FabricCase fault_case = FabricCase::kNone;
  std::vector<LinkFault> faults;
  double rail_noise = 0.02;
  double common_noise = 0.01;
  double tolerance = 0.10;
  int max_rounds = 8;
  uint64_t seed = 1;
};

std::vector<std::string> SimNodeNames(int n);
topology::Fabric SimFabric(const FabricShape& shape);
// Leaf size 16 or 32 and 4, 8 or 16 spines (no more than the leaf's
// nodes), drawn from the seed; the faults of `fault_case` on random links.
FabricScenario RandomFabricScenario(int n, FabricCase fault_case, uint64_t seed);
uint64_t FabricScenarioSeed(int n, FabricCase fault_case, int index);

// The fabric index of a shape, built once (single-threaded).
const topology::FabricIndex& SimIndexOf(const FabricShape& shape);
// The true factor of a pair test's rail in `scenario`: the slowest link on
// its path (link faults, and a bad node's cables), a collision of the pair.
double ScenarioFactor(const FabricScenario& scenario, int a, int b, int rail);

struct FabricRun {
  int rounds = 0;
  int tests = 0;
  std::vector<topology::LinkObservation> observations;
  topology::LinkReport report;
  std::string described;  // DescribeLinkReport
};
FabricRun RunFabricScenario(const FabricScenario& scenario,
                            std::vector<std::string>* trace = nullptr);
// The same fleet and noise without its link faults (uplinks, cables,
// collisions): what "rounds more" is counted against.
FabricScenario WithoutLinkFaults(const FabricScenario& scenario);

struct FabricScore {
  int link_faults = 0;    // uplink faults
  int named_exactly = 0;  // uplink named as the one bad link
  int within_two = 0;     // in an inseparable set of <= 2, said so
  int other_faults = 0;   // cable, rail, node, collision faults
  int other_found = 0;    // rail verdict for a cable/rail, node verdict, collision named
  std::vector<std::string> healthy_blamed;  // a node or rail verdict on a node without a fault
  std::vector<std::string> wrong_links;     // a healthy uplink named, or a set without the fault
  std::vector<std::string> missed;
};
FabricScore ScoreFabricRun(const FabricScenario& scenario, const FabricRun& run);

}  // namespace eb::validation::sim
