#include "common/transport/gloo/gloo_mesh.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/status/status_macros.h"
#include "common/transport/gloo/mesh_table.h"
#include "gloo/transport/tcp/address.h"

namespace eb::transport {
namespace {

// A new pair of `transport` for `peer`, and the address it listens on.
absl::StatusOr<MeshAddress> CreatePair(gloo::transport::Context& transport, int peer) {
  const auto* address =
      dynamic_cast<const gloo::transport::tcp::Address*>(&transport.createPair(peer)->address());
  if (address == nullptr) return absl::InternalError("gloo pair address is not a TCP address");
  return MeshAddress{address->getSockaddr(), address->getSeq()};
}

gloo::transport::tcp::Address ToGloo(const MeshAddress& address) {
  return gloo::transport::tcp::Address(address.address, address.seq);
}

}  // namespace

void MeshContext::Bind(std::shared_ptr<gloo::transport::Device> device,
                       std::shared_ptr<gloo::transport::Context> transport) {
  device_ = std::move(device);
  transportContext_ = std::move(transport);
}

absl::Status ConnectLanes(RendezvousStore& store, MeshContext& mesh,
                          const std::shared_ptr<gloo::transport::Device>& mesh_device,
                          MeshContext& ring,
                          const std::shared_ptr<gloo::transport::Device>& ring_device,
                          absl::Time deadline) {
  const int rank = mesh.rank;
  const int size = mesh.size;
  if (ring.rank != rank || ring.size != size) {
    return absl::InternalError("the two lanes' contexts differ in rank or size");
  }
  std::shared_ptr<gloo::transport::Context> lane0 = mesh_device->createContext(rank, size);
  std::shared_ptr<gloo::transport::Context> lane1 = ring_device->createContext(rank, size);
  lane0->setTimeout(mesh.getTimeout());
  lane1->setTimeout(ring.getTimeout());
  std::vector<MeshEntry> mine(static_cast<size_t>(size));
  std::vector<std::string> keys;
  keys.reserve(static_cast<size_t>(size));
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    MeshEntry& entry = mine[static_cast<size_t>(peer)];
    EB_ASSIGN_OR_RETURN(entry.mesh, CreatePair(*lane0, peer));
    if (IsRingNeighbour(rank, peer, size)) {
      EB_ASSIGN_OR_RETURN(entry.ring, CreatePair(*lane1, peer));
    }
    keys.push_back(MeshTableKey(peer));
  }
  if (!keys.empty()) {
    EB_ASSIGN_OR_RETURN(std::string table, EncodeMeshTable(rank, mine));
    EB_RETURN_IF_ERROR(store.Set(MeshTableKey(rank), table));
    const absl::Duration left = deadline - absl::Now();
    EB_ASSIGN_OR_RETURN(
        std::vector<std::string> entries,
        store.WaitSlice(keys, MeshEntrySlice(rank), std::max(left, absl::ZeroDuration())));
    if (entries.size() != keys.size()) {
      return absl::InternalError(absl::StrCat("rendezvous store returned ", entries.size(),
                                              " entries for ", keys.size(), " peers"));
    }
    // Decode every entry before connecting any pair: a bad one fails the
    // rank before it opens connections that its peers would wait on.
    std::vector<MeshEntry> peers(static_cast<size_t>(size));
    size_t next = 0;
    for (int peer = 0; peer < size; ++peer) {
      if (peer == rank) continue;
      EB_ASSIGN_OR_RETURN(peers[static_cast<size_t>(peer)],
                          DecodeMeshEntry(entries[next++], rank, peer, size));
    }
    // Every rank connects lane 0 before lane 1, in rank order, as Gloo's
    // connectFullMesh does: the listening side of a pair waits for the
    // other's connect, which never waits on a lane-1 pair.
    for (int peer = 0; peer < size; ++peer) {
      if (peer == rank) continue;
      lane0->getPair(peer)->connect(ToGloo(peers[static_cast<size_t>(peer)].mesh).bytes());
    }
    for (int peer = 0; peer < size; ++peer) {
      const std::optional<MeshAddress>& address = peers[static_cast<size_t>(peer)].ring;
      if (address.has_value()) lane1->getPair(peer)->connect(ToGloo(*address).bytes());
    }
  }
  mesh.Bind(mesh_device, std::move(lane0));
  ring.Bind(ring_device, std::move(lane1));
  return absl::OkStatus();
}

}  // namespace eb::transport
