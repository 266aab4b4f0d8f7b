#pragma once

// Which data plane a test uses (`--transport auto` picks NCCL on GPU nodes
// and Gloo elsewhere; a test never mixes them) and whether the requested
// element type and operator are available on it. Pure.

#include <vector>

#include "absl/status/statusor.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::coordinator {

// Resolves `requested` (AUTO, GLOO or NCCL) for the given nodes' inventories
// in node order. FAILED_PRECONDITION naming the node that lacks the
// transport, or naming two nodes with different NCCL versions (NCCL refuses
// to init across them).
absl::StatusOr<ebnccl::v1::Transport> SelectTransport(
    ebnccl::v1::Transport requested, const std::vector<std::string>& node_names,
    const std::vector<ebnccl::v1::NodeInventory>& inventories);

// INVALID_ARGUMENT naming data_type or reduce_op when `transport` cannot run
// them (Gloo: no half, bfloat16, fp8 or avg).
absl::Status CheckSupported(ebnccl::v1::Transport transport, const ebnccl::v1::TestSpec& spec);

}  // namespace eb::coordinator
