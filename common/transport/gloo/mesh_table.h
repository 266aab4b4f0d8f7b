#pragma once

// The address table of a Gloo full mesh, as it travels through the
// rendezvous store (issue 15). Gloo's own connectFullMesh stores each rank's
// addresses under one key and has every rank read every peer's key, two
// store calls per peer (O(N^2) calls through the coordinator, each copying
// a value of N addresses). Instead each rank stores one table with a fixed-
// size entry per rank (entry j: the address its pair for rank j listens
// on), and reads in one call entry `rank` of every peer's table
// (RendezvousStore::WaitSlice). Pure: no Gloo, no I/O.

#include <sys/socket.h>

#include <cstdint>
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

// Entry layout: family (4 or 6), 0, port (network order), address (16
// bytes, IPv4 in the first 4), IPv6 flow info and scope id (big-endian),
// sequence number (big-endian, two's complement).
inline constexpr int kMeshEntryBytes = 36;

// The key of rank `rank`'s table (under the communicator's key prefix).
std::string MeshTableKey(int rank);

// Where entry `rank` lies in every table.
ValueSlice MeshEntrySlice(int rank);

// The table of rank `rank` of `peers.size()` ranks: entry j encodes
// peers[j]; the entry of `rank` itself is zeros and never read.
// INVALID_ARGUMENT naming the entry for a family other than AF_INET or
// AF_INET6, or a rank outside the table.
absl::StatusOr<std::string> EncodeMeshTable(int rank, const std::vector<MeshAddress>& peers);

// Decodes one entry that rank `peer` published. INVALID_ARGUMENT naming the
// peer and the field for a wrong size, family or padding.
absl::StatusOr<MeshAddress> DecodeMeshEntry(absl::string_view entry, int peer);

}  // namespace eb::transport
