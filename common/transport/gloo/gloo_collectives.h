#pragma once

// The collectives of the Gloo backend on host buffers, with nccl-tests
// semantics (pointers exactly as nccl-tests passes them, see
// CollectiveCall). Gloo's own algorithms are used for all_gather,
// broadcast, reduce, alltoall and barrier; ring reduce-scatter is
// implemented here on Gloo unbound buffers; all_reduce and the sendrecv
// ring shift run on our own ring links (tcp_link/ring_links.h,
// ring_all_reduce.h). Used by GlooCommunicator from
// its one benchmark thread.
//
// In-place behaviour (checked against the Gloo 2022-05-18 sources):
//   all_reduce  send == recv: our ring reads this rank's input chunk only
//               before the all-gather overwrites it (ring_all_reduce.h).
//   all_gather  send == recv + rank*count: Gloo's in-place form (output
//               only; Gloo expects this rank's chunk already in place).
//   reduce_scatter  recv == send + rank*count: our ring reads this rank's
//               own chunk only in its final step, element by element, so it
//               may alias the output.
//   broadcast   send == recv on the root: output only.
//   reduce      send == recv on the root: output only. Gloo uses the output
//               buffer as work space on every rank, so non-roots get a
//               scratch output and never touch the caller's buffers.
//   alltoall, sendrecv  send == recv: the send data is staged in scratch
//               first (Gloo would receive over data still to be sent).
// Any other partial overlap of send and receive regions is staged the same
// way, so every placement gives the right answer.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/transport/communicator.h"
#include "common/transport/host_memory.h"
#include "common/transport/tcp_link/ring_links.h"
#include "gloo/context.h"

namespace eb::transport {

// Scratch memory reused across calls; grows, never shrinks. Not
// thread-safe (owned by the communicator's benchmark thread).
class GlooScratch {
 public:
  // At least `bytes` bytes; the pointer stays valid until the next Reserve
  // with a larger size. RESOURCE_EXHAUSTED when memory runs out.
  absl::StatusOr<uint8_t*> Reserve(size_t bytes);

 private:
  HostMemory memory_;
};

// OK when the Gloo backend can run `call` on a communicator of `world_size`
// ranks: INVALID_ARGUMENT for a bad root or a null buffer with count > 0;
// UNIMPLEMENTED for half, bfloat16, fp8 ("data_type: half is not supported
// by the gloo transport") and for avg on a reducing collective.
absl::Status CheckGlooCall(const CollectiveCall& call, int world_size);

// The scratch bytes RunGlooCollective needs for `call` on `rank`.
size_t GlooScratchBytes(const CollectiveCall& call, int rank, int world_size);

// The two lanes of a communicator (gloo_mesh.h). Lane 0 (`mesh`), Gloo's
// full mesh, carries every collective but sendrecv and all_reduce; lane 1
// (`ring`), our own ring links to the next and from the previous rank,
// carries those two (null with 1 rank).
struct GlooLanes {
  std::shared_ptr<gloo::Context> mesh;
  RingLinks* ring = nullptr;
};

// Runs one collective call (the caller has checked it with CheckGlooCall).
// `scratch` holds at least GlooScratchBytes bytes. count == 0 returns at
// once. Every wait is bounded by `timeout` (Gloo options' setTimeout; our
// own ring steps share one deadline). Errors as CallGloo: DEADLINE_EXCEEDED
// on a timeout, UNAVAILABLE when a peer is gone, INTERNAL on a broken Gloo
// precondition; sendrecv's as RingLinks::Shift (INVALID_ARGUMENT for a
// peer's header that disagrees, ABORTED after RingLinks::Abort). After an
// error the connections are unusable.
absl::Status RunGlooCollective(const GlooLanes& lanes, const CollectiveCall& call,
                               std::chrono::milliseconds timeout, uint8_t* scratch);

// gloo::barrier bounded by `timeout`. Errors as RunGlooCollective.
absl::Status RunGlooBarrier(const std::shared_ptr<gloo::Context>& context,
                            std::chrono::milliseconds timeout);

}  // namespace eb::transport
