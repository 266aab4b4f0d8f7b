#pragma once

// Internal to the validation core: everything a validation knows, from which
// the report is built (report_builder.h) and the next round planned
// (validation.cc). Nodes are indices into `nodes` (input order).

#include <memory>
#include <string>
#include <vector>

#include "coordinator/topology/link_localization.h"
#include "coordinator/topology/paths.h"
#include "coordinator/validation/fleet.h"
#include "coordinator/validation/observation.h"
#include "coordinator/validation/preflight.h"
#include "coordinator/validation/verdict.h"

namespace eb::validation {

struct ValidationState {
  std::vector<Node> nodes;
  Options options;
  std::vector<NodePreflight> preflight;  // empty when the suite is off
  std::vector<bool> lost;                // untestable: unreachable or lost
  std::vector<std::string> lost_reason;
  std::vector<Observation> observations;  // every planned test, in order
  std::vector<RoundSummary> rounds;

  std::vector<bool> in_intra;                  // taking part in the intra suite
  std::vector<bool> in_pairs;                  // set when the pair suite starts
  std::vector<std::string> not_paired_reason;  // why a node sat pairs out
  bool pairs_started = false;
  bool pair_round_limit = false;  // stopped with evidence still short
  bool pairs_too_few = false;     // fewer than 2 nodes to pair
  bool fleet_started = false;
  bool done = false;
  // Set by Validation::Stop: why the runner ended it before it was done
  // (cancelled, its deadline, a restart).
  std::string stopped_reason;
  std::vector<Finding> findings;  // raised while running (fleet suite)

  // Options::fabric indexed by the fleet's nodes (issue 31); null: none.
  std::shared_ptr<const topology::FabricIndex> fabric;
  // Every node has one rail: the fabric cables rail 0 only and no node has
  // more than one HCA (a Gloo or netns host, a one-NIC RoCE fleet). A pair
  // test's whole result is then its rail-0 result, no split_rails needed.
  bool single_rail = false;
  int link_rounds = 0;
  bool link_round_limit = false;  // stopped with links still to tell apart
  // The last link plan (its inseparable sets name what no pair can tell).
  topology::LinkPlan link_plan;

  bool Fit(int i) const { return preflight.empty() || preflight[i].fit; }
  int size() const { return static_cast<int>(nodes.size()); }
};

}  // namespace eb::validation
