#include "coordinator/validation/preflight.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/validation/inventory_compare.h"
#include "coordinator/validation/pcie_links.h"

namespace eb::validation {

std::vector<NodePreflight> RunPreflight(const std::vector<Node>& nodes) {
  std::vector<NodePreflight> out(nodes.size());
  std::vector<const ebnccl::v1::NodeInventory*> inventories(nodes.size(), nullptr);
  for (size_t i = 0; i < nodes.size(); ++i) {
    out[i].compared = nodes[i].reachable;
    if (nodes[i].reachable) inventories[i] = &nodes[i].inventory;
  }
  // A link below its own maximum needs no fleet to judge it: listed before
  // the differences from the majority.
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (inventories[i] == nullptr) continue;
    for (std::string& line : TrainedDownLinks(*inventories[i])) {
      out[i].fit = false;
      out[i].reasons.push_back(std::move(line));
    }
  }
  for (const FactDifference& d : CompareInventories(inventories)) {
    NodePreflight& node = out[d.node];
    node.fit = false;
    if (d.tied.empty()) {
      node.reasons.push_back(
          absl::StrFormat("%s: %s here, %s on the fleet's majority (%d of %d nodes)", d.subject,
                          d.value, d.majority, d.majority_nodes, d.compared_nodes));
    } else {
      node.reasons.push_back(absl::StrFormat(
          "%s: %s here; no majority (%s on %d nodes each, of %d): cannot tell which is right",
          d.subject, d.value, absl::StrJoin(d.tied, ", "), d.majority_nodes, d.compared_nodes));
    }
  }
  return out;
}

}  // namespace eb::validation
