#include "coordinator/core/collective_tests/drift_check.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "coordinator/validation/inventory_facts.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

std::vector<validation::FactDifference> FindDrift(
    const std::vector<std::string>& names, const std::vector<v1::NodeInventory>& inventories) {
  const size_t nodes = std::min(names.size(), inventories.size());
  std::vector<const v1::NodeInventory*> compared;
  compared.reserve(nodes);
  for (size_t i = 0; i < nodes; ++i) compared.push_back(&inventories[i]);
  return validation::CompareInventories(compared, validation::RunTestFacts());
}

std::string DescribeDrift(const std::vector<std::string>& names,
                          const std::vector<validation::FactDifference>& findings) {
  std::vector<std::string> lines;
  for (const validation::FactDifference& f : findings) {
    const std::string& node = names.at(f.node);
    if (f.majority.empty()) {
      lines.push_back(absl::StrCat("node ", node, ": ", f.subject, " ", f.value,
                                   " (no majority: ", f.compared_nodes, " nodes disagree)"));
    } else {
      lines.push_back(absl::StrCat("node ", node, ": ", f.subject, " ", f.value, " differs from ",
                                   f.majority, " on ", f.majority_nodes, " of ", f.compared_nodes,
                                   " nodes"));
    }
  }
  return absl::StrJoin(lines, "; ");
}

absl::Status CheckDrift(const std::vector<std::string>& names,
                        const std::vector<v1::NodeInventory>& inventories, bool allow_drift,
                        std::vector<std::string>* warnings) {
  const std::vector<validation::FactDifference> findings = FindDrift(names, inventories);
  if (findings.empty()) return absl::OkStatus();
  if (!allow_drift) {
    return absl::FailedPreconditionError(
        absl::StrCat("the nodes differ: ", DescribeDrift(names, findings),
                     ". A mismatch is the top cause of hangs and false verdicts; align the "
                     "nodes, leave the odd one out (--nodes), or run anyway with --allow-drift"));
  }
  for (const validation::FactDifference& finding : findings) {
    warnings->push_back(DescribeDrift(names, {finding}));
  }
  return absl::OkStatus();
}

}  // namespace eb::coordinator
