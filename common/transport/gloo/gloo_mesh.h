#pragma once

// Gloo's full mesh, connected through our rendezvous store with one Set and
// one WaitSlice per rank (issue 15) instead of gloo's connectFullMesh, which
// makes two store calls per peer (~130,800 coordinator calls for 256 ranks,
// each returning a peer's whole address list). The pairs, their addresses
// and their connect() are Gloo's; only the exchange differs: see
// mesh_table.h for the table each rank publishes.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/transport/rendezvous_store.h"
#include "gloo/rendezvous/context.h"
#include "gloo/transport/device.h"

namespace eb::transport {

class MeshContext final : public gloo::rendezvous::Context {
 public:
  using gloo::rendezvous::Context::Context;

  // Creates a TCP pair per peer on `device`, publishes this rank's table
  // under MeshTableKey(rank), waits at most until `deadline` for every
  // peer's entry for this rank, and connects every pair (Gloo's connects
  // use the context timeout). Store errors come back with their code
  // (DEADLINE_EXCEEDED naming the missing keys, ABORTED, UNAVAILABLE); a
  // peer's malformed entry is INVALID_ARGUMENT naming the rank and field.
  // Gloo's own failures (connect timeouts, resets) are thrown as Gloo's
  // exceptions: call it inside CallGloo.
  absl::Status ConnectFullMesh(RendezvousStore& store,
                               const std::shared_ptr<gloo::transport::Device>& device,
                               absl::Time deadline);
};

}  // namespace eb::transport
