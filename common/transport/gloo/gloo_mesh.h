#pragma once

// Gloo's full mesh, connected through our rendezvous store with one Set and
// one WaitSlice per rank (issue 15) instead of gloo's connectFullMesh, which
// makes two store calls per peer (~130,800 coordinator calls for 256 ranks,
// each returning a peer's whole address list). The pairs, their addresses
// and their connect() are Gloo's; only the exchange differs: see
// mesh_table.h for the table each rank publishes.
//
// The same exchange connects a second lane (issue 16): pairs to the two
// ring neighbours only, on a second Gloo device. A Gloo device does all the
// socket I/O of its pairs on its one loop thread, under one mutex per pair,
// so one lane gives a process one thread for both directions of a ring
// shift; two lanes give it two (gloo_collectives.cc says how they are used).

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/transport/rendezvous_store.h"
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

// Connects both lanes of this rank (`mesh` and `ring`: contexts of the same
// rank and size): lane 0, a TCP pair per peer on `mesh_device`, and lane 1,
// a TCP pair per ring neighbour (mesh_table.h, IsRingNeighbour) on
// `ring_device`. Publishes this rank's table under MeshTableKey(rank),
// waits at most until `deadline` for every peer's entry for this rank, and
// connects every pair (Gloo's connects use each context's timeout). Store
// errors come back with their code (DEADLINE_EXCEEDED naming the missing
// keys, ABORTED, UNAVAILABLE); a peer's malformed entry is INVALID_ARGUMENT
// naming the rank and field, before any pair connects. Gloo's own failures
// (connect timeouts, resets) are thrown as Gloo's exceptions: call it
// inside CallGloo.
absl::Status ConnectLanes(RendezvousStore& store, MeshContext& mesh,
                          const std::shared_ptr<gloo::transport::Device>& mesh_device,
                          MeshContext& ring,
                          const std::shared_ptr<gloo::transport::Device>& ring_device,
                          absl::Time deadline);

}  // namespace eb::transport
