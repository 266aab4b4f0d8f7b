#pragma once

// What `ebctl topology` shows (issue 31): the loaded fabric as the
// GetTopology reply, and its disagreements with the agents' inventories.
// Pure: no gRPC call, no I/O; the control service fills it on the loop.

#include <string>
#include <vector>

#include "coordinator/topology/fabric_source.h"
#include "coordinator/topology/inventory_match.h"
#include "ebnccl/v1/common.pb.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

// One agent's HCA ports as the topology names them ("mlx5_0", "mlx5_0/2");
// a node without HCAs, its bootstrap interface ("eth0": Gloo's one NIC).
topology::InventoryNode InventoryNodeOf(const std::string& name,
                                        const ebnccl::v1::NodeInventory& inventory);

// The reply for `loaded` read from `file` (null: none loaded, `loaded`
// false), compared with `fleet`.
ebnccl::v1::GetTopologyReply TopologyReply(const topology::FabricSource* loaded,
                                           const std::string& file,
                                           const std::vector<topology::InventoryNode>& fleet);

}  // namespace eb::coordinator
