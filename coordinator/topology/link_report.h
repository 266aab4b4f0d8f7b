#pragma once

// What the link localization concludes, as verdicts beside the nodes'
// (issue 31 item 3): links[] for the fabric, rail verdicts for node-side
// cables, node verdicts where every cable of a node is bad, routing
// collisions with their pair, and what could not be told apart. No node is
// blamed for a link: a node appears here only through its own cables.
// Pure; the proto/JSON/HTML rendering is the coordinator's (next step).

#include <cstddef>
#include <string>
#include <vector>

#include "coordinator/topology/link_localization.h"

namespace eb::topology {

struct LinkVerdict {
  int link = 0;                  // FabricIndex id (kUplink)
  bool confirmed = false;        // slow in tests of two pairs, the only candidate of one
  double ratio = 1;              // the lowest measured/expected of its slow tests
  std::vector<size_t> evidence;  // slow observations crossing it
};

// A node-side cable (or the HCA port at its end): one rail of one node.
struct RailVerdict {
  int node = 0;
  int rail = 0;
  int link = 0;  // the cable
  bool confirmed = false;
  double ratio = 1;
  std::vector<size_t> evidence;
};

// Every cabled rail of the node bad: the node, not its cables.
struct NodeLinkVerdict {
  int node = 0;
  bool confirmed = false;  // every rail confirmed
  double ratio = 1;
  std::vector<size_t> evidence;
};

struct CollisionVerdict {
  int a = 0, b = 0, rail = 0;
  bool confirmed = false;  // slow twice; else a single slow result not yet re-tested
  std::vector<size_t> evidence;
};

struct InseparableVerdict {
  std::vector<int> links;  // one of these (no pair can tell them apart)
  std::vector<size_t> evidence;
};

struct LinkReport {
  std::vector<LinkVerdict> links;
  std::vector<RailVerdict> rails;
  std::vector<NodeLinkVerdict> nodes;
  std::vector<CollisionVerdict> collisions;
  std::vector<InseparableVerdict> inseparable;
  // Slow results still unexplained when the rounds ran out: their
  // candidates (suspects, nobody blamed).
  std::vector<std::vector<int>> unresolved;
};

// `last_plan`: the plan that came back empty (its inseparable sets).
LinkReport JudgeLinks(const FabricIndex& index, const std::vector<LinkObservation>& observations,
                      const LinkAssessment& assessment, const LinkPlan& last_plan);

// One line per verdict, for a human (names from the index).
std::string DescribeLinkReport(const FabricIndex& index, const LinkReport& report);

}  // namespace eb::topology
