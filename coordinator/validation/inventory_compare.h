#pragma once

// The one majority comparison of node inventories, fact by fact
// (inventory_facts.h), behind both preflight (a differing node is unfit)
// and run-test's drift check (a differing node refuses the test). Pure.
//
// Rules, the same for both callers:
//  * The majority of a fact is its most common value among the nodes
//    compared on it (a plurality: 2 of 5 nodes can be the majority).
//  * When two or more values tie for most common, nobody can say which is
//    right: there is no majority, and every compared node differs (is
//    named), those with the tied values too. Two nodes that disagree are
//    a tie.
//  * An unknown value (InventoryFact::absent is nullptr and the value is
//    empty) is not compared: it never differs and does not count. An
//    absent one ("(none)") is a value like any other.
//  * A device fact (per HCA port, per GPU) is compared for each device
//    among the nodes that have it; a node without that device takes no
//    part (the HCA ports fact names a node that misses a port).

#include <string>
#include <vector>

#include "coordinator/validation/inventory_facts.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::validation {

// One node whose value of one fact (on one device) is not the majority's.
struct FactDifference {
  std::string fact;     // the fact's name: "NCCL version", "link rate"
  std::string subject;  // as printed: "NCCL version", "HCA mlx5_3:1 link rate"
  int node = 0;         // index of the node in the input
  std::string value;    // the node's value, as printed ("(none)" when absent)
  // The majority's value; "" when there is none (a tie), and then `tied`
  // lists the values that tie for most common, sorted.
  std::string majority;
  std::vector<std::string> tied;
  int majority_nodes = 0;  // nodes with the majority's value (with each tied value)
  int value_nodes = 0;     // nodes with this node's value
  int compared_nodes = 0;  // nodes compared on the subject (value known)
};

// Compares the inventories on `facts`: one entry per node that differs, by
// fact in `facts` order, devices in order (ports by name, GPUs by index),
// then nodes in input order. A null inventory takes no part (an unreachable
// node).
std::vector<FactDifference> CompareInventories(
    const std::vector<const ebnccl::v1::NodeInventory*>& inventories,
    const std::vector<InventoryFact>& facts = InventoryFacts());

}  // namespace eb::validation
