#pragma once

// The fleet a validation runs on, as the node registry knows it: each node
// as the validation core's Node, and the data plane its tests run.

#include <vector>

#include "coordinator/core/nodes/node_registry.h"
#include "coordinator/topology/fabric.h"
#include "coordinator/validation/fleet.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::coordinator {

// One registry record as the core's node (unreachable when lost). With a
// fabric (issue 31, [topology] file) the node's leaf is that of its
// lowest-rail cable, so that round 1 pairs nodes across leaves and loads
// the uplinks (validation/pair_planner.h, FirstRoundMatching); a node the
// fabric lacks keeps "" (unknown).
validation::Node NodeFromRecord(const NodeRecord& record, const topology::Fabric* fabric = nullptr);

// Whether the validation's tests run NCCL: what run-test would pick for all
// the reachable nodes at once (`requested`: the spec's transport). A mixed
// fleet counts as Gloo. It decides the sizes without -b/-e and whether the
// baselines, NCCL's figures, apply (validation/spec_proto.h).
bool FleetRunsNccl(NodeRegistry& registry, ebnccl::v1::Transport requested,
                   const std::vector<validation::Node>& nodes);

}  // namespace eb::coordinator
