#pragma once

// Reads a hand-written fabric map: for RoCE/Ethernet fabrics (no
// ibnetdiscover) or any fabric described by hand. The caller reads the
// file (common/io/bounded_file); the one reader of our TOML data files
// (common/spec/toml_tables.h) parses it, so that the pure core links only
// Abseil:
//
//   # comment                   whole-line or trailing
//   version = 1                 optional, before any table; must be 1
//   [[cable]]                   one node-side cable (an HCA port to a leaf)
//   node = "node001"            as the agent names the node
//   hca = "mlx5_0"
//   rail = 0                    optional; default: the node's HCAs in
//                               natural name order are rails 0, 1, ...
//   leaf = "leaf-r0-1"
//   leaf_port = 1
//   [[uplink]]                  one leaf-to-spine cable
//   leaf = "leaf-r0-1"
//   leaf_port = 33
//   spine = "spine-1"
//   spine_port = 1
//   [[switch]]                  optional: a switch's GUID, for the report
//   name = "leaf-r0-1"
//   guid = "0x7cfe900300a5a2a0"
//
// Anything else (another table, an unknown, repeated or missing key, a
// value of the wrong type, a line over kMaxTopologyLineBytes) is
// INVALID_ARGUMENT naming the line ("topology line N: ..."); then
// CheckFabric's rules.

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "coordinator/topology/fabric.h"

namespace eb::topology {

absl::StatusOr<Fabric> ParseFabricToml(absl::string_view text);

}  // namespace eb::topology
