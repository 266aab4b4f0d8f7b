#pragma once

// Gloo's full mesh, connected through our rendezvous store with one Set and
// one WaitSlice per rank (issue 15) instead of gloo's connectFullMesh, which
// makes two store calls per peer (~130,800 coordinator calls for 256 ranks,
// each returning a peer's whole address list). The pairs, their addresses
// and their connect() are Gloo's; only the exchange differs: see
// mesh_table.h for the table each rank publishes.
//
// The same exchange connects a second lane (issue 16): our own ring links
// (tcp_link/ring_links.h), a connection to the next rank and one from the
// previous rank, each served by a thread of its own with blocking calls,
// which carry sendrecv's ring shift. A Gloo device does all the socket I/O
// of its pairs on its one loop thread, under one mutex per pair; that was
// the measured limit of the CPU data plane (docs/BENCHMARKS.md §10).

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/transport/rendezvous_store.h"
#include "common/transport/tcp_link/ring_links.h"
#include "gloo/rendezvous/context.h"
#include "gloo/transport/context.h"
#include "gloo/transport/device.h"

namespace eb::transport {

class MeshContext final : public gloo::rendezvous::Context {
 public:
  using gloo::rendezvous::Context::Context;

  // Makes this a context of `device`'s `transport` (connected or not).
  void Bind(std::shared_ptr<gloo::transport::Device> device,
            std::shared_ptr<gloo::transport::Context> transport);
};

// Connects both lanes of this rank: lane 0, a Gloo TCP pair per peer on
// `device` (bound into `mesh`), and, with 2 ranks or more, lane 1, the ring
// links to the next and from the previous rank, on the device's address
// (returned in `ring`; null for 1 rank). Publishes this rank's table under
// MeshTableKey(rank), waits at most until `deadline` for every peer's entry
// for this rank, and connects every pair (Gloo's connects use the context's
// timeout), then the ring links (before `deadline`). Store errors come
// back with their code (DEADLINE_EXCEEDED naming the missing keys, ABORTED,
// UNAVAILABLE); a peer's malformed entry is INVALID_ARGUMENT naming the
// rank and field, before any pair connects; the ring links' errors as
// RingLinks::Connect. Gloo's own failures (connect timeouts, resets) are
// thrown as Gloo's exceptions: call it inside CallGloo.
absl::Status ConnectLanes(RendezvousStore& store, MeshContext& mesh,
                          const std::shared_ptr<gloo::transport::Device>& device,
                          std::unique_ptr<RingLinks>* ring, absl::Time deadline);

}  // namespace eb::transport
