#include "coordinator/core/collective_tests/collective_test_placement.h"

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "coordinator/core/collective_tests/drift_check.h"
#include "coordinator/core/collective_tests/gpu_sharing.h"
#include "coordinator/core/collective_tests/rank_assigner.h"
#include "coordinator/core/collective_tests/transport_selection.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

namespace {

// The transport every node offers (set in `spec`), able to run its data
// type and reduction.
absl::Status ChooseTestTransport(const TestPlacement& placement, v1::TestSpec& spec) {
  EB_ASSIGN_OR_RETURN(
      const v1::Transport transport,
      SelectTransport(spec.transport(), placement.node_names, placement.inventories));
  spec.set_transport(transport);
  return CheckSupported(transport, spec);
}

std::vector<PlacementNode> SlotsOfNodes(const TestPlacement& placement) {
  std::vector<PlacementNode> slots;
  for (size_t i = 0; i < placement.node_names.size(); ++i) {
    slots.push_back({placement.node_names[i], placement.inventories[i].worker_slots()});
  }
  return slots;
}

// One rank per GPU per communicator: NCCL fails init otherwise ("Duplicate
// GPU detected"), so refuse before anything starts.
absl::Status BindRanksToGpus(TestPlacement& placement) {
  const std::vector<std::string>& names = placement.node_names;
  const std::vector<v1::NodeInventory>& inventories = placement.inventories;
  const int per_node = static_cast<int>(placement.ranks.size()) / static_cast<int>(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    if (inventories[i].gpus_size() < per_node) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "node ", names[i], " has ", inventories[i].gpus_size(),
          " GPUs; NCCL allows one rank per GPU and the test asks for ", per_node, " per node"));
    }
  }
  // Slot i runs on the node's i-th GPU as the agent reported it, so the
  // report names the physical GPU (an agent may own only some of them).
  // Its bus id goes along, so that the worker can check that CUDA's
  // device is that GPU.
  for (v1::RankAssignment& rank : placement.ranks) {
    const v1::GpuInfo& gpu = inventories[rank.node_index()].gpus(rank.local_rank());
    rank.set_device_index(gpu.index());
    rank.set_gpu_pci_bus_id(gpu.pci_bus_id());
  }
  // Agents of one host that split its GPUs must not both use one of them.
  return CheckNoSharedGpus(placement.ranks, inventories);
}

}  // namespace

absl::StatusOr<TestPlacement> PlaceTest(const std::vector<const NodeRecord*>& nodes,
                                        v1::TestSpec& spec) {
  TestPlacement placement;
  for (const NodeRecord* node : nodes) {
    placement.node_names.push_back(node->name);
    placement.inventories.push_back(node->inventory);
  }
  EB_RETURN_IF_ERROR(ChooseTestTransport(placement, spec));
  // Issue 12, part 4: nodes that differ in versions, firmware or links are
  // refused before anything starts, or run with a warning (allow_drift).
  EB_RETURN_IF_ERROR(CheckDrift(placement.node_names, placement.inventories, spec.allow_drift(),
                                &placement.drift_warnings));

  const bool nccl = spec.transport() == v1::TRANSPORT_NCCL;
  EB_ASSIGN_OR_RETURN(placement.ranks,
                      AssignRanks(SlotsOfNodes(placement), spec.workers_per_node(), nccl));
  if (nccl) {
    EB_RETURN_IF_ERROR(BindRanksToGpus(placement));
  }
  const int world_size = static_cast<int>(placement.ranks.size());
  if (spec.root_rank() >= world_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("root_rank: ", spec.root_rank(), " is outside [0, ", world_size, ")"));
  }
  spec.set_workers_per_node(world_size / static_cast<int>(placement.node_names.size()));
  spec.clear_node_names();
  for (const std::string& name : placement.node_names) spec.add_node_names(name);
  return placement;
}

}  // namespace eb::coordinator
