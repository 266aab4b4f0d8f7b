#pragma once

// The preflight suite (no data plane): every reachable node's inventory is
// compared, attribute by attribute, with the fleet's majority. A node that
// differs is unfit, with a reason naming the attribute, its value and the
// majority's, and is not tested further: a node whose NCCL differs would only
// produce a confusing hang, a missing HCA a confusing slow pair.
//
// Attributes: GPU model, count and memory; driver, CUDA and NCCL versions;
// the set of HCA ports; each port's state, link layer and rate (compared
// among the nodes that have the port); the bootstrap interface. The
// majority of an attribute is its most common value; when two values tie
// for most common, no one can say which is right, and every node of the
// tie is unfit too ("no majority"). GPU memory 0 means unknown (no NVML)
// and is not compared. Unreachable nodes take no part. Pure.

#include <string>
#include <vector>

#include "coordinator/validation/fleet.h"

namespace eb::validation {

struct NodePreflight {
  bool compared = false;  // false for an unreachable node
  bool fit = true;
  // One line per attribute that differs, e.g. "nccl_version: 2.27.3 here,
  // 2.28.9 on the fleet's majority (231 of 232 nodes)".
  std::vector<std::string> reasons;
};

// One entry per input node, in input order.
std::vector<NodePreflight> RunPreflight(const std::vector<Node>& nodes);

}  // namespace eb::validation
