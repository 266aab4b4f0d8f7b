#pragma once

// The fabric a validation page draws (issue 31), from the coordinator's
// loaded topology (GetTopology): the pair matrix groups nodes by leaf, and
// the fabric picture (assets/report_fabric.js) draws each rail's spines,
// leaves and the nodes on them, with the report's link, rail and collision
// verdicts over them. Only the topology's own facts: nothing here reads a
// verdict. Pure functions, any thread.

#include "ebnccl/v1/control.pb.h"
#include "nlohmann/json.hpp"

namespace eb::ebctl::report {

// Adds to a validation page, when a topology is loaded (nothing otherwise):
//   "leaf_of": {node: leaf}, the leaf of each node's lowest-rail cable, by
//     which the pair matrix groups the nodes;
//   "fabric": {"rails": [{"rail", "leaves": [{"name", "guid", "nodes":
//     [node, ...]}], "spines": [{"name", "guid"}], "uplinks": [[leaf index,
//     spine index, cables], ...]}]}, one entry per rail that has a cable,
//     ascending: the leaves cabled on that rail (by name, each with its
//     nodes by name), the spines those leaves reach (by name), and each
//     leaf-spine link once, with how many parallel cables it has. Indices,
//     not names, for the uplinks: 1,024 nodes on 8 rails of 16 spines have
//     8,192 of them.
void AddFabric(nlohmann::json& page, const ebnccl::v1::GetTopologyReply& topology);

}  // namespace eb::ebctl::report
