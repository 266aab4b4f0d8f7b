#include "common/transport/gloo/gloo_mesh.h"

#include <arpa/inet.h>

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

void SetPort(sockaddr_storage& address, uint16_t port) {
  if (address.ss_family == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&address)->sin_port = htons(port);
  } else {
    reinterpret_cast<sockaddr_in6*>(&address)->sin6_port = htons(port);
  }
}

}  // namespace

void MeshContext::Bind(std::shared_ptr<gloo::transport::Device> device,
                       std::shared_ptr<gloo::transport::Context> transport) {
  device_ = std::move(device);
  transportContext_ = std::move(transport);
}

absl::Status ConnectLanes(RendezvousStore& store, MeshContext& mesh,
                          const std::shared_ptr<gloo::transport::Device>& device,
                          std::unique_ptr<RingLinks>* ring, absl::Time deadline) {
  const int rank = mesh.rank;
  const int size = mesh.size;
  std::shared_ptr<gloo::transport::Context> lane0 = device->createContext(rank, size);
  lane0->setTimeout(mesh.getTimeout());
  std::vector<MeshEntry> mine(static_cast<size_t>(size));
  std::vector<std::string> keys;
  keys.reserve(static_cast<size_t>(size));
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    EB_ASSIGN_OR_RETURN(mine[static_cast<size_t>(peer)].mesh, CreatePair(*lane0, peer));
    keys.push_back(MeshTableKey(peer));
  }
  std::unique_ptr<RingLinks> links;
  if (!keys.empty()) {
    // The ring links listen on the host address the device's pairs bind;
    // the previous rank learns the port and token from its entry.
    const int prev = (rank + size - 1) % size;
    MeshEntry& for_prev = mine[static_cast<size_t>(prev)];
    EB_ASSIGN_OR_RETURN(links, RingLinks::Listen(rank, size, for_prev.mesh.address));
    RingLinkAddress listener{for_prev.mesh.address, links->token()};
    SetPort(listener.address, links->port());
    for_prev.ring = listener;

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
    // Every rank connects lane 0 in rank order, as Gloo's connectFullMesh
    // does, then its ring link: the listening side of a Gloo pair waits for
    // the other's connect, which never waits on a ring link, and a ring
    // link's connect completes in the peer's backlog without its accept.
    for (int peer = 0; peer < size; ++peer) {
      if (peer == rank) continue;
      lane0->getPair(peer)->connect(ToGloo(peers[static_cast<size_t>(peer)].mesh).bytes());
    }
    const RingLinkAddress& to_next = *peers[static_cast<size_t>((rank + 1) % size)].ring;
    const auto until = LinkClock::now() + absl::ToChronoNanoseconds(std::max(deadline - absl::Now(),
                                                                             absl::ZeroDuration()));
    EB_RETURN_IF_ERROR(links->Connect(to_next.address, to_next.token, until));
  }
  mesh.Bind(device, std::move(lane0));
  *ring = std::move(links);
  return absl::OkStatus();
}

}  // namespace eb::transport
