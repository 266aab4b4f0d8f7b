#pragma once

// The preflight suite (no data plane): every reachable node's inventory is
// compared, fact by fact, with the fleet's majority (inventory_facts.h,
// inventory_compare.h: the same facts and rules as run-test's drift
// check). A node that differs in any fact is unfit, with a reason naming
// the fact, its value and the majority's, and is not tested further: a
// node whose NCCL differs would only produce a confusing hang, a missing
// HCA a confusing slow pair.
//
// When two values tie for most common, no one can say which is right, and
// every node of the tie is unfit too ("no majority"). Unknown values (GPU
// memory without NVML, firmware, a rate or MTU that could not be read) are
// not compared. Unreachable nodes take no part. Pure.

#include <string>
#include <vector>

#include "coordinator/validation/fleet.h"

namespace eb::validation {

struct NodePreflight {
  bool compared = false;  // false for an unreachable node
  bool fit = true;
  // One line per fact that differs, e.g. "NCCL version: 2.27.3 here,
  // 2.28.9 on the fleet's majority (231 of 232 nodes)".
  std::vector<std::string> reasons;
};

// One entry per input node, in input order; compares Node::inventory.
std::vector<NodePreflight> RunPreflight(const std::vector<Node>& nodes);

}  // namespace eb::validation
