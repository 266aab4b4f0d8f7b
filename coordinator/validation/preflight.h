#pragma once

// The preflight suite (no data plane): every reachable node's inventory is
// compared, fact by fact, with the fleet's majority (inventory_facts.h,
// inventory_compare.h: the same facts and rules as run-test's drift
// check). A node that differs in any fact is unfit, with a reason naming
// the fact, its value and the majority's, and is not tested further: a
// node whose NCCL differs would only produce a confusing hang, a missing
// HCA a confusing slow pair.
//
// A GPU or HCA whose PCIe link runs below its own maximum width or speed
// (it trained down: a loose riser, a bad lane, a BIOS setting) makes its
// node unfit too, whatever the fleet says (pcie_links.h), with a reason
// naming the device and both figures. An HCA's rail is not marked: rails
// are judged by pair tests, which an unfit node sits out; the reason names
// the HCA (and the GPU that is nearest to it names it in the inventory).
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
  // One line per link that trained down, e.g. "GPU 3 (0000:1b:00.0) PCIe
  // link x8 16.0 GT/s, capable of x16 32.0 GT/s", then one per fact that
  // differs, e.g. "NCCL version: 2.27.3 here, 2.28.9 on the fleet's
  // majority (231 of 232 nodes)".
  std::vector<std::string> reasons;
};

// One entry per input node, in input order; compares Node::inventory.
std::vector<NodePreflight> RunPreflight(const std::vector<Node>& nodes);

}  // namespace eb::validation
