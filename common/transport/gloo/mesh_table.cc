#include "common/transport/gloo/mesh_table.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

#include "absl/strings/str_cat.h"

namespace eb::transport {
namespace {

constexpr int kFamilyAt = 0;
constexpr int kPortAt = 2;
constexpr int kAddressAt = 4;
constexpr int kFlowInfoAt = 20;
constexpr int kScopeIdAt = 24;
constexpr int kSeqAt = 28;

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

absl::StatusOr<std::string> EncodeEntry(const MeshAddress& peer, int index) {
  std::string entry(kMeshEntryBytes, '\0');
  if (peer.address.ss_family == AF_INET) {
    sockaddr_in in{};
    std::memcpy(&in, &peer.address, sizeof(in));
    entry[kFamilyAt] = 4;
    std::memcpy(&entry[kPortAt], &in.sin_port, 2);
    std::memcpy(&entry[kAddressAt], &in.sin_addr, 4);
  } else if (peer.address.ss_family == AF_INET6) {
    sockaddr_in6 in6{};
    std::memcpy(&in6, &peer.address, sizeof(in6));
    entry[kFamilyAt] = 6;
    std::memcpy(&entry[kPortAt], &in6.sin6_port, 2);
    std::memcpy(&entry[kAddressAt], &in6.sin6_addr, 16);
    std::memcpy(&entry[kFlowInfoAt], &in6.sin6_flowinfo, 4);
    PutBigEndian(entry, kScopeIdAt, in6.sin6_scope_id, 4);
  } else {
    return absl::InvalidArgumentError(absl::StrCat("peers[", index, "].address: family ",
                                                   peer.address.ss_family,
                                                   " is neither AF_INET nor AF_INET6"));
  }
  PutBigEndian(entry, kSeqAt, static_cast<uint64_t>(peer.seq), 8);
  return entry;
}

}  // namespace

std::string MeshTableKey(int rank) { return absl::StrCat("mesh/", rank); }

ValueSlice MeshEntrySlice(int rank) {
  return ValueSlice{int64_t{rank} * kMeshEntryBytes, kMeshEntryBytes};
}

absl::StatusOr<std::string> EncodeMeshTable(int rank, const std::vector<MeshAddress>& peers) {
  if (rank < 0 || static_cast<size_t>(rank) >= peers.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("rank: ", rank, " is outside [0, ", peers.size(), ")"));
  }
  std::string table;
  table.reserve(peers.size() * kMeshEntryBytes);
  for (size_t j = 0; j < peers.size(); ++j) {
    if (static_cast<int>(j) == rank) {
      table.append(kMeshEntryBytes, '\0');
      continue;
    }
    absl::StatusOr<std::string> entry = EncodeEntry(peers[j], static_cast<int>(j));
    if (!entry.ok()) return entry.status();
    table += *entry;
  }
  return table;
}

absl::StatusOr<MeshAddress> DecodeMeshEntry(absl::string_view entry, int peer) {
  const std::string where = absl::StrCat("rendezvous address of rank ", peer, ": ");
  if (entry.size() != static_cast<size_t>(kMeshEntryBytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "entry: ", entry.size(), " bytes, expected ", kMeshEntryBytes));
  }
  if (entry[1] != '\0') {
    return absl::InvalidArgumentError(absl::StrCat(where, "padding: byte 1 is not zero"));
  }
  MeshAddress out;
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
    std::memcpy(&out.address, &in, sizeof(in));
  } else if (family == 6) {
    sockaddr_in6 in6{};
    in6.sin6_family = AF_INET6;
    std::memcpy(&in6.sin6_port, &entry[kPortAt], 2);
    std::memcpy(&in6.sin6_addr, &entry[kAddressAt], 16);
    std::memcpy(&in6.sin6_flowinfo, &entry[kFlowInfoAt], 4);
    in6.sin6_scope_id = static_cast<uint32_t>(GetBigEndian(entry, kScopeIdAt, 4));
    std::memcpy(&out.address, &in6, sizeof(in6));
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "family: ", family, ", expected 4 (IPv4) or 6 (IPv6)"));
  }
  out.seq = static_cast<int64_t>(GetBigEndian(entry, kSeqAt, 8));
  return out;
}

}  // namespace eb::transport
