#pragma once

// Environment drift between the nodes of one test, checked before launch
// (issue 12, part 4): nodes that differ in NCCL version, CUDA driver, GPU
// model, HCA firmware (fw_ver), HCA link rate or the bootstrap interface's
// MTU are the top cause of hangs and of false verdicts (a node on another driver
// is "slow" for reasons no network test can show). For each attribute on
// which the nodes disagree, every node that differs from the majority is
// named. Pure: reads only the inventories the agents registered.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::coordinator {

struct DriftFinding {
  std::string attribute;   // "NCCL version", "CUDA driver", "GPU model", ...
  std::string node;        // the node that differs
  std::string value;       // its value
  std::string majority;    // the majority's value ("" when there is none)
  int majority_nodes = 0;  // nodes that have the majority's value
  int known_nodes = 0;     // nodes whose value is known (empty values are unknown)
};

// `inventories[i]` is node `names[i]`'s. Attributes a node does not report
// (empty, 0) are unknown and never drift. Where no value has a strict
// majority, every node is named with majority "". In node order per
// attribute, attributes in the order above.
std::vector<DriftFinding> FindDrift(const std::vector<std::string>& names,
                                    const std::vector<ebnccl::v1::NodeInventory>& inventories);

// One line per finding: "node b: CUDA driver 550.54.15 differs from
// 535.129.03 on 3 of 4 nodes".
std::string DescribeDrift(const std::vector<DriftFinding>& findings);

// The check where a test starts: OK without drift; with drift,
// FAILED_PRECONDITION naming every node that differs from the majority
// (DescribeDrift), unless `allow_drift`, which appends one line per finding
// to `warnings` (for TestReport.drift_warnings) and returns OK.
absl::Status CheckDrift(const std::vector<std::string>& names,
                        const std::vector<ebnccl::v1::NodeInventory>& inventories, bool allow_drift,
                        std::vector<std::string>* warnings);

}  // namespace eb::coordinator
