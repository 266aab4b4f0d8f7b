#pragma once

// Where an accepted test runs: the transport its nodes share and its ranks
// on them, decided before anything starts (docs/DESIGN.md, "One test").
// Pure: no I/O, no time; callable from any thread.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/core/nodes/node_registry.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::coordinator {

struct TestPlacement {
  // The test's nodes in rank order, and their inventories (same index).
  std::vector<std::string> node_names;
  std::vector<ebnccl::v1::NodeInventory> inventories;
  // Rank i at index i; on NCCL each names the physical GPU it runs on
  // (device_index and gpu_pci_bus_id as the agent reported them).
  std::vector<ebnccl::v1::RankAssignment> ranks;
  // The differences between the nodes that allow_drift let through, one
  // line each (TestReport.drift_warnings).
  std::vector<std::string> drift_warnings;
};

// Places `spec` (ValidateAndNormalize's) on `nodes` (TestManager's
// selection, in order): the transport (SelectTransport, then
// CheckSupported), the drift check (CheckDrift), the ranks (AssignRanks;
// on NCCL one per GPU, bound to the node's GPUs and checked against GPUs
// shared between agents of one host) and root_rank inside the world. On
// success `spec` says what was placed: transport, workers_per_node and
// node_names. Errors as those steps return them: FAILED_PRECONDITION for no
// common transport or refused drift, INVALID_ARGUMENT for an unsupported
// type or a root outside the world, RESOURCE_EXHAUSTED for too few slots
// or GPUs or a shared GPU.
absl::StatusOr<TestPlacement> PlaceTest(const std::vector<const NodeRecord*>& nodes,
                                        ebnccl::v1::TestSpec& spec);

}  // namespace eb::coordinator
