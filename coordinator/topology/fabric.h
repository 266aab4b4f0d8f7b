#pragma once

// The fabric as data (issue 31): which leaf switch, and which port of it,
// each node's HCA of each rail is cabled to, and which leaf-to-spine links
// exist. A rail-optimized two-tier fat-tree: HCA r of every node hangs off a
// leaf of rail r; leaves connect to spines. Read from ibnetdiscover's output
// (ibnetdiscover.h) or a small TOML map (fabric_toml.h); the caller reads
// the file (common/io/bounded_file). Pure: plain structs, no I/O.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace eb::topology {

// What one topology may hold at most (hostile or broken input is refused,
// never allocated without bound).
inline constexpr size_t kMaxTopologyLineBytes = 4096;
inline constexpr size_t kMaxTopologyLines = size_t{1} << 20;
inline constexpr size_t kMaxCables = 65536;   // 8,192 nodes x 8 rails
inline constexpr size_t kMaxUplinks = 65536;  // leaf-to-spine cables
inline constexpr size_t kMaxSwitches = 8192;
inline constexpr size_t kMaxNameBytes = 256;  // node, HCA and switch names
inline constexpr int kMaxRails = 64;
inline constexpr int kMaxSwitchPort = 4096;

// The node-side cable: one HCA port of one node to a leaf port. Its fault is
// a rail verdict (one rail of one node), never a fabric one.
struct Cable {
  std::string node;  // as the agents name their node (ebctl nodes)
  std::string hca;   // "mlx5_0"
  int rail = 0;      // local rank whose NIC it is; 0-based
  std::string leaf;  // switch name
  int leaf_port = 0;
};

// One leaf-to-spine cable.
struct Uplink {
  std::string leaf;
  int leaf_port = 0;
  std::string spine;
  int spine_port = 0;
};

struct Fabric {
  std::vector<Cable> cables;
  std::vector<Uplink> uplinks;
  // Switch name -> GUID ("0x7cfe900300a5a2a0"), where the source gave one.
  std::map<std::string, std::string> switch_guids;
};

// Refuses a fabric that cannot be a two-tier fat-tree or is out of bounds,
// naming the first offender: an empty or over-long name, a rail or port out
// of range, an HCA or a (node, rail) cabled twice, a switch port used twice,
// a switch that is both a leaf (has a node cable) and a spine, an uplink
// between two leaves, too many cables, uplinks or switches.
absl::Status CheckFabric(const Fabric& fabric);

// "leaf-3 port 17".
std::string PortName(const std::string& switch_name, int port);

}  // namespace eb::topology
