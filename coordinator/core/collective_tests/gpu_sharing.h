#pragma once

// Several agents may run on one host, each owning some of its GPUs and
// registering as its own node (e.g. `--gpus 0-3` and `--gpus 4-7` to
// simulate two nodes). If two of them own the same physical GPU, one NCCL
// test could place two ranks on it, which NCCL cannot be trusted to catch:
// its duplicate-GPU check compares host hashes, and nodes of one host may
// run with distinct NCCL_HOSTIDs. Pure.

#include <vector>

#include "absl/status/status.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::coordinator {

// `ranks` (with device_index and gpu_pci_bus_id set) and the inventories
// of the test's nodes, indexed by RankAssignment.node_index. OK unless two
// ranks on different nodes with the same non-empty NodeInventory.host_id
// use GPUs with the same PCI bus id (compared in canonical form); then
// RESOURCE_EXHAUSTED naming both nodes, both ranks and the GPU: the nodes
// offer fewer distinct GPUs than the placement needs (STYLE.md: "not
// enough GPUs"); the request itself is valid and would run on other nodes.
// Nodes without a host_id (older agents) are not compared.
absl::Status CheckNoSharedGpus(const std::vector<ebnccl::v1::RankAssignment>& ranks,
                               const std::vector<ebnccl::v1::NodeInventory>& inventories);

}  // namespace eb::coordinator
