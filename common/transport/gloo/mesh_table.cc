#include "common/transport/gloo/mesh_table.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/spec/rendezvous_bounds.h"

namespace eb::transport {

// The coordinator bounds a test's rendezvous values by this size per rank
// (spec::RendezvousBoundsFor): a larger entry would refuse honest tables.
static_assert(kMeshEntryBytes <= spec::kRendezvousValueBytesPerRank,
              "a Gloo table entry must fit the rendezvous value bound per rank");

namespace {

constexpr int kFamilyAt = 0;
constexpr int kPortAt = 2;
constexpr int kAddressAt = 4;
constexpr int kFlowInfoAt = 20;
constexpr int kScopeIdAt = 24;
constexpr int kSeqAt = 28;
constexpr int kRingPortAt = 36;
constexpr int kRingPaddingAt = 38;
constexpr int kRingTokenAt = 40;

void PutBigEndian(std::string& out, int at, uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) {
    out[static_cast<size_t>(at) + static_cast<size_t>(i)] = static_cast<char>(value & 0xff);
    value >>= 8;
  }
}

uint64_t GetBigEndian(absl::string_view in, int at, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) {
    value = (value << 8) |
            static_cast<unsigned char>(in[static_cast<size_t>(at) + static_cast<size_t>(i)]);
  }
  return value;
}

// The port (network order) of an AF_INET or AF_INET6 address; 0 for another
// family.
uint16_t PortOf(const sockaddr_storage& address) {
  if (address.ss_family == AF_INET) {
    return reinterpret_cast<const sockaddr_in*>(&address)->sin_port;
  }
  if (address.ss_family == AF_INET6) {
    return reinterpret_cast<const sockaddr_in6*>(&address)->sin6_port;
  }
  return 0;
}

// True when `a` and `b` are the same host address (family, address, IPv6
// flow info and scope), whatever their ports. Field by field: the padding of
// a sockaddr_storage is not ours to compare.
bool SameHost(const sockaddr_storage& a, const sockaddr_storage& b) {
  if (a.ss_family != b.ss_family) return false;
  if (a.ss_family == AF_INET) {
    const auto* x = reinterpret_cast<const sockaddr_in*>(&a);
    const auto* y = reinterpret_cast<const sockaddr_in*>(&b);
    return x->sin_addr.s_addr == y->sin_addr.s_addr;
  }
  if (a.ss_family == AF_INET6) {
    const auto* x = reinterpret_cast<const sockaddr_in6*>(&a);
    const auto* y = reinterpret_cast<const sockaddr_in6*>(&b);
    return std::memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(in6_addr)) == 0 &&
           x->sin6_flowinfo == y->sin6_flowinfo && x->sin6_scope_id == y->sin6_scope_id;
  }
  return false;
}

absl::Status EncodeRing(const MeshEntry& peer, int index, std::string& entry) {
  if (!peer.ring.has_value()) return absl::OkStatus();
  const uint16_t port = PortOf(peer.ring->address);
  if (!SameHost(peer.mesh.address, peer.ring->address) || port == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("peers[", index, "].ring: not the lane-0 address with a port of its own"));
  }
  if (peer.ring->token == 0) {
    return absl::InvalidArgumentError(absl::StrCat("peers[", index, "].ring.token: 0"));
  }
  std::memcpy(&entry[kRingPortAt], &port, 2);
  PutBigEndian(entry, kRingTokenAt, peer.ring->token, 8);
  return absl::OkStatus();
}

absl::StatusOr<std::string> EncodeEntry(const MeshEntry& peer, int index) {
  std::string entry(kMeshEntryBytes, '\0');
  const sockaddr_storage& address = peer.mesh.address;
  if (address.ss_family == AF_INET) {
    sockaddr_in in{};
    std::memcpy(&in, &address, sizeof(in));
    entry[kFamilyAt] = 4;
    std::memcpy(&entry[kPortAt], &in.sin_port, 2);
    std::memcpy(&entry[kAddressAt], &in.sin_addr, 4);
  } else if (address.ss_family == AF_INET6) {
    sockaddr_in6 in6{};
    std::memcpy(&in6, &address, sizeof(in6));
    entry[kFamilyAt] = 6;
    std::memcpy(&entry[kPortAt], &in6.sin6_port, 2);
    std::memcpy(&entry[kAddressAt], &in6.sin6_addr, 16);
    std::memcpy(&entry[kFlowInfoAt], &in6.sin6_flowinfo, 4);
    PutBigEndian(entry, kScopeIdAt, in6.sin6_scope_id, 4);
  } else {
    return absl::InvalidArgumentError(absl::StrCat("peers[", index, "].address: family ",
                                                   address.ss_family,
                                                   " is neither AF_INET nor AF_INET6"));
  }
  PutBigEndian(entry, kSeqAt, static_cast<uint64_t>(peer.mesh.seq), 8);
  if (absl::Status ring = EncodeRing(peer, index, entry); !ring.ok()) return ring;
  return entry;
}

// Lane 1 of a decoded entry: lane 0's address with the ring link's port,
// and its token. `next`: the entry's publisher is the reader's next rank,
// the only one whose entry carries a ring link.
absl::StatusOr<std::optional<RingLinkAddress>> DecodeRing(absl::string_view entry,
                                                          const MeshAddress& mesh, bool next,
                                                          const std::string& where) {
  if (entry[kRingPaddingAt] != '\0' || entry[kRingPaddingAt + 1] != '\0') {
    return absl::InvalidArgumentError(absl::StrCat(where, "padding: byte 38 or 39 is not zero"));
  }
  uint16_t port = 0;
  std::memcpy(&port, &entry[kRingPortAt], 2);
  const uint64_t token = GetBigEndian(entry, kRingTokenAt, 8);
  if (!next) {
    if (port != 0 || token != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "ring: a ring link address from a rank that is not the next one"));
    }
    return std::optional<RingLinkAddress>();
  }
  if (port == 0) {
    return absl::InvalidArgumentError(absl::StrCat(where, "ring port: 0 from the next rank"));
  }
  if (token == 0) {
    return absl::InvalidArgumentError(absl::StrCat(where, "ring token: 0 from the next rank"));
  }
  RingLinkAddress ring;
  ring.address = mesh.address;
  ring.token = token;
  if (ring.address.ss_family == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&ring.address)->sin_port = port;
  } else {
    reinterpret_cast<sockaddr_in6*>(&ring.address)->sin6_port = port;
  }
  return std::optional<RingLinkAddress>(ring);
}

}  // namespace

bool IsRingNext(int rank, int peer, int size) {
  if (size < 2 || peer == rank) return false;
  return peer == (rank + 1) % size;
}

std::string MeshTableKey(int rank) { return absl::StrCat("mesh/", rank); }

ValueSlice MeshEntrySlice(int rank) {
  return ValueSlice{int64_t{rank} * kMeshEntryBytes, kMeshEntryBytes};
}

absl::StatusOr<std::string> EncodeMeshTable(int rank, const std::vector<MeshEntry>& peers) {
  const int size = static_cast<int>(peers.size());
  if (rank < 0 || rank >= size) {
    return absl::InvalidArgumentError(absl::StrCat("rank: ", rank, " is outside [0, ", size, ")"));
  }
  std::string table;
  table.reserve(peers.size() * kMeshEntryBytes);
  for (int j = 0; j < size; ++j) {
    if (j == rank) {
      table.append(kMeshEntryBytes, '\0');
      continue;
    }
    absl::StatusOr<std::string> entry = EncodeEntry(peers[static_cast<size_t>(j)], j);
    if (!entry.ok()) return entry.status();
    // Rank j's ring link connects to its next rank: this one, or none.
    if (peers[static_cast<size_t>(j)].ring.has_value() != IsRingNext(j, rank, size)) {
      return absl::InvalidArgumentError(
          absl::StrCat("peers[", j, "].ring: a ring link address exactly for the previous rank"));
    }
    table += *entry;
  }
  return table;
}

absl::StatusOr<MeshEntry> DecodeMeshEntry(absl::string_view entry, int rank, int peer, int size) {
  const std::string where = absl::StrCat("rendezvous address of rank ", peer, ": ");
  if (entry.size() != static_cast<size_t>(kMeshEntryBytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "entry: ", entry.size(), " bytes, expected ", kMeshEntryBytes));
  }
  if (entry[1] != '\0') {
    return absl::InvalidArgumentError(absl::StrCat(where, "padding: byte 1 is not zero"));
  }
  MeshEntry out;
  const int family = static_cast<unsigned char>(entry[kFamilyAt]);
  if (family == 4) {
    if (entry.substr(kAddressAt + 4, kSeqAt - kAddressAt - 4).find_first_not_of('\0') !=
        absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(where, "padding: IPv4 entry has bytes set"));
    }
    sockaddr_in in{};
    in.sin_family = AF_INET;
    std::memcpy(&in.sin_port, &entry[kPortAt], 2);
    std::memcpy(&in.sin_addr, &entry[kAddressAt], 4);
    std::memcpy(&out.mesh.address, &in, sizeof(in));
  } else if (family == 6) {
    sockaddr_in6 in6{};
    in6.sin6_family = AF_INET6;
    std::memcpy(&in6.sin6_port, &entry[kPortAt], 2);
    std::memcpy(&in6.sin6_addr, &entry[kAddressAt], 16);
    std::memcpy(&in6.sin6_flowinfo, &entry[kFlowInfoAt], 4);
    in6.sin6_scope_id = static_cast<uint32_t>(GetBigEndian(entry, kScopeIdAt, 4));
    std::memcpy(&out.mesh.address, &in6, sizeof(in6));
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "family: ", family, ", expected 4 (IPv4) or 6 (IPv6)"));
  }
  out.mesh.seq = static_cast<int64_t>(GetBigEndian(entry, kSeqAt, 8));
  absl::StatusOr<std::optional<RingLinkAddress>> ring =
      DecodeRing(entry, out.mesh, IsRingNext(rank, peer, size), where);
  if (!ring.ok()) return ring.status();
  out.ring = *ring;
  return out;
}

}  // namespace eb::transport
