#pragma once

// Rank placement (ARCHITECTURE.md, path of a test, step 2): ranks are
// contiguous per node, rank = node_index * workers_per_node + local_rank,
// and on GPU transports local_rank is the GPU index. Pure.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::coordinator {

struct PlacementNode {
  std::string name;
  // Worker slots the node offers (GPU count on GPU nodes).
  int slots = 0;
};

// Assigns ranks over `nodes` in the given order. `workers_per_node` 0 means
// every slot, which requires equal slot counts (INVALID_ARGUMENT naming the
// nodes otherwise). RESOURCE_EXHAUSTED when a node has fewer slots than
// asked; INVALID_ARGUMENT for no nodes. `uses_devices` sets device_index to
// local_rank (one rank per GPU, never two on one device), else -1.
absl::StatusOr<std::vector<ebnccl::v1::RankAssignment>> AssignRanks(
    const std::vector<PlacementNode>& nodes, int workers_per_node, bool uses_devices);

}  // namespace eb::coordinator
