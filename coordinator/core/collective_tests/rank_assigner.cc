#include "coordinator/core/collective_tests/rank_assigner.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/spec/limits.h"

namespace eb::coordinator {

absl::StatusOr<std::vector<ebnccl::v1::RankAssignment>> AssignRanks(
    const std::vector<PlacementNode>& nodes, int workers_per_node, bool uses_devices) {
  if (nodes.empty()) return absl::InvalidArgumentError("node_names: no nodes to run on");
  if (workers_per_node < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("workers_per_node: must be >= 0, got ", workers_per_node));
  }
  int per_node = workers_per_node;
  if (per_node == 0) {
    per_node = nodes.front().slots;
    for (const PlacementNode& node : nodes) {
      if (node.slots != per_node) {
        std::vector<std::string> counts;
        counts.reserve(nodes.size());
        for (const PlacementNode& n : nodes) counts.push_back(absl::StrCat(n.name, ": ", n.slots));
        return absl::InvalidArgumentError(
            absl::StrCat("workers_per_node: the nodes offer different slot counts (",
                         absl::StrJoin(counts, ", "),
                         "); pass --workers-per-node to use the same count on each"));
      }
    }
    if (per_node == 0) {
      return absl::ResourceExhaustedError(
          absl::StrCat("node ", nodes.front().name, " offers no worker slots"));
    }
  }
  for (const PlacementNode& node : nodes) {
    if (node.slots < per_node) {
      return absl::ResourceExhaustedError(
          absl::StrCat("workers_per_node: node ", node.name, " has ", node.slots, " worker slot",
                       node.slots == 1 ? "" : "s", "; the test asks for ", per_node, " per node"));
    }
  }
  // Checked in 64 bits before anything is allocated: a node reporting 2^31
  // slots made this a std::bad_alloc that ended the coordinator (case 6).
  const int64_t total = int64_t{per_node} * static_cast<int64_t>(nodes.size());
  if (total > spec::kMaxRanksPerTest) {
    return absl::InvalidArgumentError(
        absl::StrCat("workers_per_node: ", per_node, " per node on ", nodes.size(), " nodes makes ",
                     total, " ranks; a test has at most ", spec::kMaxRanksPerTest));
  }
  const int world_size = static_cast<int>(total);
  std::vector<ebnccl::v1::RankAssignment> ranks;
  ranks.reserve(world_size);
  for (int node_index = 0; node_index < static_cast<int>(nodes.size()); ++node_index) {
    for (int local_rank = 0; local_rank < per_node; ++local_rank) {
      ebnccl::v1::RankAssignment& rank = ranks.emplace_back();
      rank.set_rank(node_index * per_node + local_rank);
      rank.set_world_size(world_size);
      rank.set_node_name(nodes[node_index].name);
      rank.set_node_index(node_index);
      rank.set_local_rank(local_rank);
      rank.set_device_index(uses_devices ? local_rank : -1);
    }
  }
  return ranks;
}

}  // namespace eb::coordinator
