#pragma once

// Reads ibnetdiscover's own output (infiniband-diags, ibnetdiscover(8),
// "TOPOLOGY FILE FORMAT") into a Fabric. The caller reads the file
// (common/io/bounded_file); this is pure. What it reads:
//
//   vendid=0x2c9                       key=value lines: skipped
//   switchguid=0x7cfe90...(7cfe90...)
//   Switch  36 "S-7cfe900300a5a2a0"    # "leaf-1" enhanced port 0 lid 3 lmc 0
//   [1]  "H-7cfe900300b07320"[1](7cfe900300b07321)   # "node1 mlx5_0" lid 4 4xNDR
//   [33] "S-7cfe900300a5b000"[5]       # "spine-1" lid 9 4xNDR
//   Ca   1 "H-7cfe900300b07320"        # "node1 mlx5_0"
//   [1](7cfe900300b07321)  "S-7cfe900300a5a2a0"[1]   # lid 4 lmc 0 "leaf-1" lid 3 4xNDR
//
// A node's header line ("Switch", "Ca" or "Rt", its port count, its quoted
// type-GUID, then "# NodeDescription") is followed by one line per
// connected port: "[port]", for a CA or router "(port GUID)", then the
// peer's quoted type-GUID and "[peer port]", then a comment. Each link is
// listed from both ends; the switches' lines are the ones used, the CAs'
// must agree with them.
//
// What it assumes, as the defaults of the fabrics it is for:
//  * A CA's NodeDescription is "<host> <device>" (rdma-core's default,
//    "%h %d": "node1 mlx5_0"): the host is the node's name as its agent
//    reports it, the device is the HCA. A port other than 1 is "mlx5_0/2".
//  * A switch is named by its NodeDescription (the GUID when that is empty
//    or not unique). A switch with a CA on it is a leaf; one with only
//    switches is a spine. A link between two leaves or two spines (three
//    tiers) is refused.
//  * Rails: a node's HCAs in natural name order (mlx5_2 before mlx5_10)
//    are rails 0, 1, ...: GPU r's NIC on a rail-optimized node.
//
// Refused whole, naming the line: a line longer than kMaxTopologyLineBytes,
// more than kMaxTopologyLines lines, a line that is none of the above, a
// link line before any node, a port out of range, a GUID that is not hex, a
// peer that is never declared, the two ends disagreeing, a switch or CA
// declared twice; then CheckFabric's rules.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "coordinator/topology/fabric.h"

namespace eb::topology {

absl::StatusOr<Fabric> ParseIbnetdiscover(absl::string_view text);

// Whether host-device name `a` sorts before `b` with digit runs compared as
// numbers ("mlx5_2" < "mlx5_10").
bool NaturalLess(const std::string& a, const std::string& b);

}  // namespace eb::topology
