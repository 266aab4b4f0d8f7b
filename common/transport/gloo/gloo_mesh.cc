#include "common/transport/gloo/gloo_mesh.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/status/status_macros.h"
#include "common/transport/gloo/mesh_table.h"
#include "gloo/transport/context.h"
#include "gloo/transport/tcp/address.h"

namespace eb::transport {

absl::Status MeshContext::ConnectFullMesh(RendezvousStore& store,
                                          const std::shared_ptr<gloo::transport::Device>& device,
                                          absl::Time deadline) {
  std::shared_ptr<gloo::transport::Context> transport = device->createContext(rank, size);
  transport->setTimeout(getTimeout());
  std::vector<MeshAddress> addresses(static_cast<size_t>(size));
  std::vector<std::string> keys;
  keys.reserve(static_cast<size_t>(size));
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    const auto* address =
        dynamic_cast<const gloo::transport::tcp::Address*>(&transport->createPair(peer)->address());
    if (address == nullptr) {
      return absl::InternalError("gloo pair address is not a TCP address");
    }
    addresses[static_cast<size_t>(peer)] = MeshAddress{address->getSockaddr(), address->getSeq()};
    keys.push_back(MeshTableKey(peer));
  }
  if (!keys.empty()) {
    EB_ASSIGN_OR_RETURN(std::string table, EncodeMeshTable(rank, addresses));
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
    std::vector<gloo::transport::tcp::Address> peers;
    peers.reserve(entries.size());
    size_t next = 0;
    for (int peer = 0; peer < size; ++peer) {
      if (peer == rank) continue;
      EB_ASSIGN_OR_RETURN(MeshAddress decoded, DecodeMeshEntry(entries[next++], peer));
      peers.emplace_back(decoded.address, decoded.seq);
    }
    next = 0;
    for (int peer = 0; peer < size; ++peer) {
      if (peer == rank) continue;
      transport->getPair(peer)->connect(peers[next++].bytes());
    }
  }
  device_ = device;
  transportContext_ = std::move(transport);
  return absl::OkStatus();
}

}  // namespace eb::transport
