#pragma once

// The address table of a Gloo full mesh, as it travels through the
// rendezvous store (issue 15). Gloo's own connectFullMesh stores each rank's
// addresses under one key and has every rank read every peer's key, two
// store calls per peer (O(N^2) calls through the coordinator, each copying
// a value of N addresses). Instead each rank stores one table with a fixed-
// size entry per rank (entry j: the addresses its pairs for rank j listen
// on), and reads in one call entry `rank` of every peer's table
// (RendezvousStore::WaitSlice). Pure: no Gloo, no I/O.
//
// An entry carries two lanes (issue 16): lane 0, the Gloo full mesh every
// Gloo collective uses, and lane 1, our own ring link (tcp_link/
// ring_links.h) that rank r-1 opens to rank r and that carries sendrecv's
// ring shift. Both lanes share the same table, so the exchange stays one
// Set and one WaitSlice per rank.

#include <sys/socket.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/transport/rendezvous_store.h"

namespace eb::transport {

// One pair's listening address: an IPv4 or IPv6 socket address and Gloo's
// sequence number (-1 where the pair has its own port).
struct MeshAddress {
  sockaddr_storage address{};
  int64_t seq = -1;
};

// Where the previous rank connects its ring link to rank r: r's listener
// (lane 0's host address with a port of its own) and the token that the
// connecting rank must present in its hello (ring_frame.h), so that a
// connection from anyone who did not read the table is refused.
struct RingLinkAddress {
  sockaddr_storage address{};
  uint64_t token = 0;
};

// What rank r publishes for rank j: the address of its lane-0 pair for j,
// and, when r is j's next rank (IsRingNext(j, r)), its ring link listener.
// Both bind the same host address, so lane 1 travels as port and token only;
// its address must equal lane 0's but for the port.
struct MeshEntry {
  MeshAddress mesh;
  std::optional<RingLinkAddress> ring;
};

// Entry layout: lane 0's family (4 or 6), 0, port (network order), address
// (16 bytes, IPv4 in the first 4), IPv6 flow info and scope id (big-endian),
// sequence number (big-endian, two's complement); then the ring link's port
// (network order, 0 = none), 2 zero bytes and token (big-endian, nonzero
// exactly when the port is).
inline constexpr int kMeshEntryBytes = 48;

// True when `peer` is rank r+1 (mod size) of `rank`, and not `rank` itself:
// the rank that `rank`'s ring link connects to.
bool IsRingNext(int rank, int peer, int size);

// The key of rank `rank`'s table (under the communicator's key prefix).
std::string MeshTableKey(int rank);

// Where entry `rank` lies in every table.
ValueSlice MeshEntrySlice(int rank);

// The table of rank `rank` of `peers.size()` ranks: entry j encodes
// peers[j]; the entry of `rank` itself is zeros and never read.
// INVALID_ARGUMENT naming the entry for a family other than AF_INET or
// AF_INET6, a ring link address that is not lane 0's but for the port or
// has no token, a ring link address present anywhere but for the previous
// rank (or missing there), or a rank outside the table.
absl::StatusOr<std::string> EncodeMeshTable(int rank, const std::vector<MeshEntry>& peers);

// Decodes entry `rank` that rank `peer` of `size` ranks published.
// INVALID_ARGUMENT naming the peer and the field for a wrong size, family or
// padding, a missing ring link port or token from the next rank, or a ring
// link address from any other rank.
absl::StatusOr<MeshEntry> DecodeMeshEntry(absl::string_view entry, int rank, int peer, int size);

}  // namespace eb::transport
