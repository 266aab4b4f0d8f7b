#pragma once

// The text output of `ebctl nodes`. Returns whole lines, each ending in '\n',
// ready for std::cout. Pure; callable from any thread.

#include <string>

#include "ebnccl/v1/control.pb.h"

namespace eb::ebctl {

// The node list: one line per node with name, address, state, slots,
// heartbeat age, transports, NCCL version, GPUs (model and memory), HCA
// ports (how many are ACTIVE), bootstrap interface and current test, under
// an upper-case header; columns are as wide as their widest cell. Then one
// line per HCA problem ("node gpu-01: HCA mlx5_103 port 1 is DOWN, ..."),
// which a table cell would truncate.
std::string NodesTable(const ebnccl::v1::ListNodesReply& reply);

// `ebctl nodes --gpus`: one row per GPU of every node: index, bus id, model,
// NUMA node, the HCA closest to it and why ("same PCIe switch", "same NUMA
// node", "none"; "-" when the agent did not read the PCI topology).
std::string GpusTable(const ebnccl::v1::ListNodesReply& reply);

}  // namespace eb::ebctl
