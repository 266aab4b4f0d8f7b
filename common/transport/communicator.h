#pragma once

// The one Communicator interface (STYLE.md rule 18) with two backends:
// GlooCommunicator (CPU buffers, TCP; always built, what CI runs) and
// NcclCommunicator (GPU buffers; built when CUDA and NCCL are found).
//
// A communicator is used by one thread (the worker's benchmark loop), except
// Abort, which may be called from any thread.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/transport/types.h"

namespace eb::transport {

// Memory in the communicator's address space (host for Gloo, device for
// NCCL). Freed on destruction.
class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual void* data() = 0;
  virtual size_t size_bytes() const = 0;
};

// One collective call, as nccl-tests issues it.
struct CollectiveCall {
  Collective collective = Collective::kAllReduce;
  DataType type = DataType::kFloat;
  ReduceOp op = ReduceOp::kSum;
  int root = 0;
  // Elements per rank as passed to the collective (nccl-tests "paramcount"):
  // all_gather/reduce_scatter/alltoall: the per-peer chunk; others: the
  // whole buffer.
  size_t count = 0;
  // Send and receive pointers inside buffers from Allocate. In-place calls
  // pass overlapping pointers exactly as nccl-tests does (all_gather: send =
  // recv + rank*count; reduce_scatter: recv = send + rank*count; others:
  // send == recv).
  const void* send = nullptr;
  void* recv = nullptr;
  // nccl-tests' per-iteration offset (startColl: "avoid cache effects"):
  // iteration i of a batch moves both pointers by
  // (i % rotation_steps) * rotation_stride_bytes, so that a call does not
  // find in the GPU's L2 (or a CPU's caches) what the previous one left
  // there. Iteration 0 is the call itself. The buffers must hold
  // rotation_steps strides. 1 (or a stride of 0): every iteration on the
  // same bytes, as for data checks.
  size_t rotation_stride_bytes = 0;
  int rotation_steps = 1;
  // When set, the backend appends the host's steady-clock time just before
  // it issues each call of a batch (NCCL: each enqueue; in CUDA-graph mode
  // each graph launch): when this rank arrived at the collective, for
  // straggler attribution (BenchmarkRunner). Not part of the call's shape.
  std::vector<std::chrono::steady_clock::time_point>* arrivals = nullptr;
  // When set (nccl-tests -I), the backend appends each call's own duration
  // in a batch, in call order (Gloo: the host clock around the synchronous
  // call; NCCL: a CUDA event pair around each enqueue). Not part of the
  // call's shape; backends in CUDA-graph mode leave it empty.
  std::vector<absl::Duration>* iteration_times = nullptr;
  // When set, backends that complete the calls of a batch one by one (Gloo)
  // call it after each call that completed, on the calling thread: how far
  // a long batch got (BenchmarkRunner's progress). It runs between timed
  // calls, so it must be cheap. NCCL's batches complete as a whole: it is
  // not called there. Not part of the call's shape.
  const std::function<void()>* on_call_done = nullptr;
};

// Records an arrival at a call of a batch into `call.arrivals`, if set.
inline void RecordArrival(const CollectiveCall& call) {
  if (call.arrivals != nullptr) call.arrivals->push_back(std::chrono::steady_clock::now());
}

// The call that iteration `iteration` of a batch of `call` issues.
inline CollectiveCall AtIteration(const CollectiveCall& call, int iteration) {
  if (call.rotation_steps <= 1 || call.rotation_stride_bytes == 0 || iteration <= 0) return call;
  const size_t shift =
      call.rotation_stride_bytes * static_cast<size_t>(iteration % call.rotation_steps);
  CollectiveCall shifted = call;
  shifted.send = static_cast<const uint8_t*>(call.send) + shift;
  shifted.recv = static_cast<uint8_t*>(call.recv) + shift;
  return shifted;
}

// The data a rank's buffers hold, for filling and verifying. `seed` differs
// per check iteration so that a stale buffer never passes.
struct DataPattern {
  CollectiveCall call;
  int world_size = 1;
  uint32_t seed = 0;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int Rank() const = 0;
  virtual int WorldSize() const = 0;
  // "gloo" or "nccl".
  virtual const char* TransportName() const = 0;

  // Allocates `bytes` (at least 1) of communicator memory. RESOURCE_EXHAUSTED
  // when it cannot (the message gives the size).
  virtual absl::StatusOr<std::unique_ptr<Buffer>> Allocate(size_t bytes) = 0;

  // Writes this rank's input for `pattern` into the call's send elements
  // (pattern.call.send, the number of elements the collective reads from it).
  // It first overwrites the receive elements with a poison value (0xFF
  // bytes; NaN for floats), so that an element the collective fails to write
  // is counted as wrong rather than passing with a stale value; the poison
  // goes first because in-place calls overlap the two regions.
  // INVALID_ARGUMENT for a pattern that does not fit the communicator;
  // UNIMPLEMENTED for a type the backend cannot fill.
  virtual absl::Status FillInput(const DataPattern& pattern) = 0;

  // Counts the elements of the call's receive buffer that differ from the
  // exactly predictable expected result (0 where the collective defines no
  // output on this rank, e.g. reduce on a non-root).
  virtual absl::StatusOr<int64_t> CountWrong(const DataPattern& pattern) = 0;

  // Issues `iterations` back-to-back calls and waits until all complete.
  // Returns the elapsed time of the whole batch measured with the
  // backend's best timer (steady clock for Gloo, CUDA events for NCCL).
  // DEADLINE_EXCEEDED when one call exceeds the communicator's op timeout;
  // ABORTED after Abort; UNAVAILABLE when a peer is gone.
  virtual absl::StatusOr<absl::Duration> Run(const CollectiveCall& call, int iterations) = 0;

  // The timed batch of a measurement (BenchmarkRunner): Run unless the
  // backend times batches differently. The NCCL backend's CUDA-graph mode
  // (nccl-tests -G N) launches the captured batch N times here and returns
  // the time of one launch, while Run launches it once, as nccl-tests does
  // for its check: N launches of an in-place reduction would change the
  // data N times.
  virtual absl::StatusOr<absl::Duration> RunTimedBatch(const CollectiveCall& call, int iterations) {
    return Run(call, iterations);
  }

  // Blocks until every rank reached the barrier (same errors as Run).
  virtual absl::Status Barrier() = 0;

  // Stops the communicator: pending and later calls fail with ABORTED.
  // Idempotent; the first reason is kept. Thread-safe.
  virtual void Abort(absl::string_view reason) = 0;
};

}  // namespace eb::transport
