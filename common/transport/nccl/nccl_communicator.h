#pragma once

// The NCCL backend of Communicator (STYLE.md rules 16-19): GPU buffers, one
// nonblocking NCCL communicator per rank, bootstrapped by rank 0's unique ID
// through the per-test rendezvous KV. NCCL is reached only through the RAII
// object CreateNcclCommunicator returns:
//   - init is nonblocking (ncclConfig_t.blocking = 0) and polled against a
//     deadline; a late or failed init is aborted, never left hanging;
//   - every wait (collective, barrier, fill, check) polls cudaEventQuery +
//     ncclCommGetAsyncError against a deadline, like nccl-tests'
//     testStreamSynchronize, and aborts on a timeout or an async error;
//   - Abort(reason) is idempotent and thread-safe and keeps the first
//     reason; after it, ncclCommDestroy/Finalize are never called. It never
//     waits for a lock held across an NCCL or CUDA call (see "Threads"
//     below), so it can break a call that blocks on the host;
//   - destruction after a clean run finalizes (bounded) and destroys.
// Differences from the Gloo backend, all following nccl-tests:
//   - send and receive regions are passed to NCCL as given; NCCL supports
//     the in-place placements nccl-tests uses, not arbitrary partial
//     overlaps (Gloo stages those);
//   - CountWrong returns 0 for alltoall and sendrecv whose regions overlap
//     on more than one rank: NCCL defines no result there and nccl-tests
//     does not check them (see IsUncheckableInPlace in nccl_types.h);
//   - avg on floating types is compared within a few ulps where the world
//     size is not a power of two (VerifyUlpTolerance), exact elsewhere.
// Cost of the nonblocking communicator: NCCL issues every call from a
// background thread (the call returns ncclInProgress) and refuses the next
// call until that thread is done, so each call costs a thread start on the
// host (tens of microseconds). Sizes whose kernels run shorter than that
// measure the host, not the fabric; nccl-tests uses a blocking
// communicator there. cuda_graph mode replays captured calls without it.
// The caller sets nothing in the environment: the device is chosen with
// cudaSetDevice(cuda_device) with all of the node's GPUs visible (rule 19);
// NCCL_* variables pass through to NCCL untouched (rule 21).

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/transport/communicator.h"
#include "common/transport/rendezvous_store.h"

namespace eb::transport {

struct NcclOptions {
  int rank = 0;
  int world_size = 1;
  // The CUDA device index of this rank's GPU (as the agent assigned it).
  int cuda_device = 0;
  // PCI bus id the agent's inventory gives that GPU; when set, the device
  // must have it (see CheckDevicePciBusId). Empty: not checked.
  std::string gpu_pci_bus_id;
  // The test id; becomes ncclConfig_t.commName, which NCCL prints in its
  // logs, RAS and Inspector output.
  std::string comm_name;
  // Bounds the unique-ID exchange and NCCL's init together.
  absl::Duration init_timeout = absl::Seconds(120);
  // Bounds each collective call: Run waits at most op_timeout * iterations
  // (capped at max(op_timeout, 1 hour)); Barrier, FillInput and CountWrong
  // at most op_timeout. Also bounds ncclCommFinalize on destruction.
  absl::Duration op_timeout = absl::Seconds(60);
  // nccl-tests -G: 0 = off; N > 0 = Run and RunTimedBatch capture their
  // `iterations` calls into a CUDA graph once per call shape; Run launches
  // it once, RunTimedBatch times N launches and returns that time / N (the
  // time of `iterations` calls).
  int cuda_graph_launches = 0;
};

// Validates `options`, binds the calling thread to options.cuda_device,
// exchanges the NCCL unique ID through `store` (rank 0 creates and
// publishes it under "nccl/unique_id"; see nccl_unique_id.h), initializes
// the NCCL communicator and allocates its stream, events and scratch
// memory. Blocks up to options.init_timeout. Returns:
//   INVALID_ARGUMENT   bad options (the message names the field), a
//                      cuda_device this node does not have, or NCCL's
//                      ncclInvalidUsage such as "Duplicate GPU detected" or
//                      mismatched NCCL versions;
//   UNIMPLEMENTED      a GPU older than sm_80 (our kernels' minimum);
//   FAILED_PRECONDITION cuda_device is not the GPU at gpu_pci_bus_id (the
//                      message names both bus ids and the rank);
//   DEADLINE_EXCEEDED  the unique ID or NCCL's init did not arrive within
//                      init_timeout (the message names rank, world size and
//                      device); the half-made communicator is aborted first;
//   UNAVAILABLE        a peer or the network failed during init, no CUDA
//                      device can be used, or the store is unreachable;
//   RESOURCE_EXHAUSTED GPU memory for the internal buffers ran out;
//   ABORTED            the store reports that the test has ended;
//   INTERNAL           a malformed unique ID or another CUDA/NCCL error.
// Threads: the communicator is then used from one thread, its owner (see
// communicator.h); the calling thread's current device is left at
// cuda_device. Abort may come from any thread at any time, but must not race
// the communicator's destruction. An Abort from another thread:
//   - stops new calls at once: the owner's next call returns ABORTED with
//     the first abort's reason;
//   - waits at most 200 ms for an NCCL call the owner is inside (every call
//     that is not stuck returns within microseconds), then calls
//     ncclCommAbort regardless, which releases a call blocked on the host
//     (e.g. a launch on a full work FIFO after a peer died); that call then
//     returns ABORTED too;
//   - returns once ncclCommAbort has; in cuda_graph mode with the owner stuck
//     it returns only after the owner's call came back (ncclCommAbort waits
//     for the owner to destroy its graphs).
// Destruction finalizes (bounded by op_timeout, then aborts) unless aborted,
// and frees its memory once its stream drained (leaks it after 10 s rather
// than block on a wedged GPU). Several threads
// of one process may each create one for a different GPU (one rank per GPU:
// NCCL refuses two ranks of one communicator on one device).
// Rank 0 hosts NCCL's bootstrap root thread: it must stay alive until every
// rank's init returned.
absl::StatusOr<std::unique_ptr<Communicator>> CreateNcclCommunicator(const NcclOptions& options,
                                                                     RendezvousStore& store);

// The version code of the loaded libnccl (ncclGetVersion, e.g. 22803 for
// 2.28.3), for reports. INTERNAL if NCCL fails to answer. Thread-safe.
absl::StatusOr<int> NcclRuntimeVersion();

}  // namespace eb::transport
