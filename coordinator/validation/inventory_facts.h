#pragma once

// The host facts on which the nodes of a fleet must agree: one table, read
// from the inventory each agent registers (common.proto NodeInventory), used
// by both places that compare nodes (issue 28, item 3):
//  * `ebctl validate`'s preflight suite (preflight.h): a node that differs
//    from the fleet's majority in any fact is unfit;
//  * run-test's drift check (coordinator/core/collective_tests/drift_check.h): a test over
//    nodes that differ in a fact marked kAlsoRunTest is refused unless
//    --allow-drift, which records the differences as warnings.
// Both compare with CompareInventories (inventory_compare.h), so a fact has
// one name, one reading and one rule for unknown values in both.
//
// Adding a compared fact is one row in InventoryFacts() (plus the proto
// field if it is new). A fact is read per node, or per device: per HCA port
// (compared among the nodes that have that port) or per GPU (by index), and
// then printed after its device ("HCA mlx5_3:1 link rate", "GPU 3 PCIe
// link").
//
// Which facts refuse a run-test: those that change what the data plane does
// between the nodes, so that a test across them hangs or measures the odd
// node rather than the network (versions, firmware, the ports and their
// links, the MTU). Preflight alone judges the facts that make a node unlike
// its fleet without breaking or slowing a test of the nodes the user picked:
// GPU count (run-test places ranks within each node's GPUs), GPU memory (a
// variant or a node with retired memory; test sizes fit the smallest GPU,
// and the model is compared) and the bootstrap interface's name (each node
// bootstraps on its own; its MTU is compared). Preflight alone also judges
// the PCIe links, port widths and GPU-HCA affinity (issue 29, item 5): a
// link slower or narrower than the fleet's slows a test without breaking
// it, and the test's measurement of it is the evidence to keep; the port's
// rate, which refuses, already differs when its width does.

#include <string>
#include <variant>
#include <vector>

#include "ebnccl/v1/common.pb.h"

namespace eb::validation {

// How a fact is read: its value on a node, or on one device of a node, as
// printed ("400 Gb/s"); "" when empty (InventoryFact::absent says what that
// means). The alternative chosen decides how the fact is compared.
using NodeFactReader = std::string (*)(const ebnccl::v1::NodeInventory&);
using HcaPortFactReader = std::string (*)(const ebnccl::v1::HcaInfo&);
using GpuFactReader = std::string (*)(const ebnccl::v1::GpuInfo&);
using FactReader = std::variant<NodeFactReader, HcaPortFactReader, GpuFactReader>;

enum class FactUse {
  kPreflightOnly,  // judged by preflight; run-test does not refuse on it
  kAlsoRunTest,    // judged by preflight, and run-test refuses on it (drift)
};

struct InventoryFact {
  // As printed: "NCCL version"; a device's fact follows its device:
  // "link rate" -> "HCA mlx5_3:1 link rate".
  const char* name;
  FactReader read;
  // What an empty value means. nullptr: unknown (the agent could not read
  // it): that node is not compared on this fact and never differs in it.
  // Otherwise the node has none (no NCCL, no GPU, no HCA port, any
  // interface), a value like any other, printed as this text.
  const char* absent;
  FactUse use;
};

// Every compared fact, in the order differences are listed.
const std::vector<InventoryFact>& InventoryFacts();
// The facts a run-test refuses on (use kAlsoRunTest), in the same order.
std::vector<InventoryFact> RunTestFacts();

// "mlx5_3:1": an HCA port as facts and reasons name it.
std::string HcaPortName(const ebnccl::v1::HcaInfo& hca);

}  // namespace eb::validation
