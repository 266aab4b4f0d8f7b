#pragma once

// Environment drift between the nodes of one test, checked before launch
// (issue 12, part 4): nodes that differ in a host fact run-test checks
// (coordinator/validation/inventory_facts.h, kAlsoRunTest: NCCL version,
// CUDA driver, GPU model, the set of HCA ports, each port's state, link
// layer, link rate and firmware, the bootstrap interface's MTU) are the top
// cause of hangs and of false verdicts (a node on another driver is "slow"
// for reasons no network test can show). For each fact on which the nodes
// disagree, every node that differs from the majority is named, by the
// rules preflight uses too (inventory_compare.h). Pure: reads only the
// inventories the agents registered.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "coordinator/validation/inventory_compare.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::coordinator {

// `inventories[i]` is node `names[i]`'s. FactDifference.node indexes both.
std::vector<validation::FactDifference> FindDrift(
    const std::vector<std::string>& names,
    const std::vector<ebnccl::v1::NodeInventory>& inventories);

// One line per finding: "node b: CUDA driver 550.54.15 differs from
// 535.129.03 on 3 of 4 nodes"; without a majority "node a: CUDA driver
// 535.129.03 (no majority: 2 nodes disagree)".
std::string DescribeDrift(const std::vector<std::string>& names,
                          const std::vector<validation::FactDifference>& findings);

// The check where a test starts: OK without drift; with drift,
// FAILED_PRECONDITION naming every node that differs from the majority
// (DescribeDrift), unless `allow_drift`, which appends one line per finding
// to `warnings` (for TestReport.drift_warnings) and returns OK.
absl::Status CheckDrift(const std::vector<std::string>& names,
                        const std::vector<ebnccl::v1::NodeInventory>& inventories, bool allow_drift,
                        std::vector<std::string>* warnings);

}  // namespace eb::coordinator
