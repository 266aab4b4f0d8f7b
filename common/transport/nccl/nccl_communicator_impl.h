#pragma once

// Internal to eb_transport_nccl: the NcclCommunicator class behind
// CreateNcclCommunicator (nccl_communicator.h), shared by its source files:
//   nccl_communicator.cc           the factory, init and the data
//                                  communicator's split;
//   nccl_communicator_calls.cc     calls through the abort gate, call
//                                  checks, and the polling waits;
//   nccl_communicator_ops.cc       collectives, CUDA graphs, fill and check;
//   nccl_communicator_teardown.cc  finalize and destroy, and Abort.
// Nothing outside this folder includes it.

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/transport/abort_gate.h"
#include "common/transport/communicator.h"
#include "common/transport/nccl/nccl_communicator.h"
#include "common/transport/nccl/nccl_device.h"
#include "common/transport/nccl/nccl_graph_cache.h"
#include "common/transport/rendezvous_store.h"

namespace eb::transport::nccl_internal {

// Run's budget is op_timeout per call, but never more than this (unless
// op_timeout itself is longer): a hang is found within the hour.
inline constexpr absl::Duration kMaxBatchBudget = absl::Hours(1);
// Graphs kept per communicator: the benchmark alternates between two call
// shapes per placement (1 call, `iterations` calls).
inline constexpr size_t kMaxCachedGraphs = 8;
// Internal device scratch: the CountWrong counter, then the barrier value.
inline constexpr size_t kCounterOffset = 0;
inline constexpr size_t kBarrierOffset = 8;
inline constexpr size_t kScratchBytes = 16;
// Sleep between polls of a launch still in progress, once spinning gave up
// (connecting peers on first use can take a while).
inline constexpr absl::Duration kLaunchPollInterval = absl::Microseconds(50);
// Sleep between polls after the spin: init and finalize take seconds, so
// 1 ms is free there; waits on the stream use a short sleep.
inline constexpr absl::Duration kSlowPollInterval = absl::Milliseconds(1);

// ncclCommGetAsyncError folded into one result: the query's own error, or
// the communicator's state (ncclSuccess, ncclInProgress or its error).
inline ncclResult_t AsyncState(ncclComm_t comm) {
  ncclResult_t state = ncclSuccess;
  const ncclResult_t query = ncclCommGetAsyncError(comm, &state);
  return query != ncclSuccess ? query : state;
}

// Thread model (the contract nccl_communicator.h states, and how it holds):
//   - One owner thread calls everything but Abort. Abort may come from any
//     thread at any time, except concurrently with the destructor.
//   - No lock is ever held across a call into NCCL or CUDA. A launch on the
//     blocking data communicator can block on the host (NCCL spins inside
//     the call while its work FIFO is full, e.g. after a peer died); an
//     Abort that had to wait for a lock held across it would never come.
//   - Every NCCL call on a communicator handle, and every touch of the CUDA
//     graph cache, is bracketed by gate_.Enter/Leave (GateCall). The
//     handles comm_ and init_comm_ are read and written only inside the
//     gate's callbacks, i.e. under its lock; Abort takes them there.
//   - Abort marks the gate aborted first (no new call starts; the owner
//     checks before each call, lock-free), then waits at most the gate's
//     grace (200 ms) for a call in progress to return: every call that is
//     not stuck does so in microseconds, and NCCL's thread-safety rules ask
//     that no two threads operate one communicator at a time. If the call
//     is still inside after the grace, it is stuck, and Abort calls
//     ncclCommAbort under it: ncclCommAbort sets NCCL's abort flags before
//     anything else (init.cc, 2.28.3), the kernels exit on them, and a launch
//     blocked on the work FIFO (enqueue.cc waitWorkFifoAvailable, which waits
//     for earlier kernels) then proceeds. This overlap is the only one, and
//     only for a stuck call; PyTorch's NCCL watchdog relies on the same.
//   - The CUDA graphs must be destroyed before ncclCommAbort can finish (it
//     waits for every graph that references the communicator). Abort
//     destroys them when the owner is out; otherwise the owner does, right
//     after its stuck call returns (gate_.Leave says so).
class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(const NcclOptions& options, const DeviceInfo& device, int nccl_version)
      : rank_(options.rank),
        world_size_(options.world_size),
        device_(options.cuda_device),
        comm_name_(options.comm_name),
        op_timeout_(options.op_timeout),
        init_timeout_(options.init_timeout),
        cuda_graph_launches_(options.cuda_graph_launches),
        compute_capability_(device.compute_capability),
        nccl_version_(nccl_version) {}

  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  // Allocates the stream, events and scratch memory, exchanges the unique
  // ID and initializes NCCL before `deadline`. Called once by the factory
  // with the device current; on failure the communicator is aborted.
  absl::Status Init(RendezvousStore& store, absl::Time deadline);

  int Rank() const override { return rank_; }
  int WorldSize() const override { return world_size_; }
  const char* TransportName() const override { return "nccl"; }

  absl::StatusOr<std::unique_ptr<Buffer>> Allocate(size_t bytes) override {
    return AllocateDeviceBuffer(device_, bytes);
  }

  absl::Status FillInput(const DataPattern& pattern) override;
  absl::StatusOr<int64_t> CountWrong(const DataPattern& pattern) override;
  absl::StatusOr<absl::Duration> Run(const CollectiveCall& call, int iterations) override;
  // In CUDA-graph mode: cuda_graph_launches launches of the captured batch,
  // the time divided by them; otherwise Run.
  absl::StatusOr<absl::Duration> RunTimedBatch(const CollectiveCall& call, int iterations) override;
  absl::Status Barrier() override;
  void Abort(absl::string_view reason) override;

 private:
  // Where a wait stops and what it reports when it does.
  struct Wait {
    absl::Time deadline;
    std::string what;     // context of errors, e.g. "collective all_reduce of 4096 bytes"
    std::string timeout;  // the DEADLINE_EXCEEDED message, also the abort reason
  };

  std::string Where() const {
    return absl::StrCat("rank ", rank_, " of ", world_size_, ", cuda device ", device_);
  }
  Wait OpWait(absl::string_view what, absl::Duration budget) const {
    return Wait{absl::Now() + budget, std::string(what),
                absl::StrCat(what, " did not complete within ", absl::FormatDuration(budget), " (",
                             Where(), ")")};
  }
  absl::Duration BatchBudget(int iterations) const {
    return std::min(op_timeout_ * iterations, std::max(op_timeout_, kMaxBatchBudget));
  }

  absl::Status CreateResources();
  // Splits the blocking communicator the collectives run on off the
  // nonblocking one init made, then releases the latter.
  absl::Status SplitBlockingDataComm(absl::Time deadline);
  // Its steps. ncclCommSplit of comm_ with `config`, waited for: the child,
  // or null when NCCL made none; aborts on failure.
  absl::StatusOr<ncclComm_t> SplitOffInitComm(ncclConfig_t* config, const Wait& wait);
  // `child` becomes comm_ and the init communicator init_comm_, then the
  // child is waited for; aborts on failure (`child` too, if Abort came
  // before it was published).
  absl::Status SwapInDataComm(ncclComm_t child, const Wait& wait);
  // Finalizes init_comm_ (polled until `deadline`), then destroys it, or
  // aborts it when the finalize did not complete. ABORTED after an Abort.
  absl::Status ReleaseInitComm(absl::Time deadline);
  absl::Status CheckCall(const CollectiveCall& call) const;
  absl::Status CheckPattern(const DataPattern& pattern) const;
  absl::Status CheckNotAborted() const {
    return gate_.aborted() ? AbortedError() : absl::OkStatus();
  }
  absl::Status AbortedError() const {
    return absl::AbortedError(absl::StrCat("nccl communicator aborted: ", gate_.reason()));
  }

  // Aborts the communicator with `status` as the reason (a no-op after an
  // earlier abort, whose reason stays) and returns `status`. Every failure
  // after work was enqueued goes through here: NCCL's state is unknown
  // afterwards, and peers blocked on this rank are released sooner.
  absl::Status Fail(absl::Status status);

  // One call through the gate, owner thread only (RAII for Enter/Leave).
  // entered() is false once an abort has begun: then nothing may touch a
  // handle or the graph cache. `under_lock` reads or publishes handles. On
  // leaving, does the cleanup an abort left to the owner (CleanUpAfterAbort).
  class GateCall {
   public:
    explicit GateCall(
        NcclCommunicator& comm, absl::FunctionRef<void()> under_lock = [] {})
        : owner_(comm), entered_(comm.gate_.Enter(under_lock)) {}
    ~GateCall() {
      if (entered_ && owner_.gate_.Leave()) owner_.CleanUpAfterAbort();
    }
    GateCall(const GateCall&) = delete;
    GateCall& operator=(const GateCall&) = delete;
    bool entered() const { return entered_; }

   private:
    NcclCommunicator& owner_;
    const bool entered_;
  };
  // Owner thread, after an Abort gave up waiting for its call: destroys the
  // CUDA graphs, which the aborting thread's ncclCommAbort waits for.
  void CleanUpAfterAbort();

  // Calls fn(*handle) through the gate (handle: &comm_ or &init_comm_). The
  // call runs outside every lock, so a blocked launch never holds up Abort.
  // Returns ncclSuccess or ncclInProgress; an error as a status (built while
  // the call is still inside the gate, so the communicator is alive);
  // ABORTED after Abort, including a call that an Abort broke. Never aborts
  // by itself.
  absl::StatusOr<ncclResult_t> CallNcclOn(ncclComm_t NcclCommunicator::*handle,
                                          absl::FunctionRef<ncclResult_t(ncclComm_t)> fn,
                                          absl::string_view what);
  absl::StatusOr<ncclResult_t> CallNccl(absl::FunctionRef<ncclResult_t(ncclComm_t)> fn,
                                        absl::string_view what) {
    return CallNcclOn(&NcclCommunicator::comm_, fn, what);
  }
  // Polls ncclCommGetAsyncError until the communicator leaves
  // ncclInProgress (after init, finalize, or a nonblocking group launch).
  // Spins first, then sleeps `sleep` between polls.
  absl::Status WaitCommReady(const Wait& wait, absl::Duration sleep);
  // How a wait on the stream polls.
  enum class Poll {
    // Spin (yield) 1000 polls, then sleep kEventPollInterval between polls:
    // waits that nothing time-critical follows.
    kSpinThenSleep,
    // Yield between polls, never sleep; the async error and the deadline are
    // checked every kSpinCheckEvery polls. For the barrier before a timed
    // batch: every rank must leave it within microseconds of the others.
    kSpin,
  };
  // Polls cudaEventQuery(event) and the communicator's async error.
  absl::Status WaitEvent(cudaEvent_t event, const Wait& wait, Poll poll = Poll::kSpinThenSleep);

  absl::Status Enqueue(const CollectiveCall& call, const Wait& wait);
  absl::Status Record(cudaEvent_t event, absl::string_view what);
  absl::StatusOr<absl::Duration> Elapsed();
  absl::StatusOr<absl::Duration> RunDirect(const CollectiveCall& call, int iterations,
                                           const Wait& wait, Poll poll = Poll::kSpinThenSleep);
  // Run and RunTimedBatch: `launches` launches of the batch's graph in
  // CUDA-graph mode (ignored otherwise).
  absl::StatusOr<absl::Duration> RunBatch(const CollectiveCall& call, int iterations, int launches);
  absl::StatusOr<absl::Duration> RunGraph(const CollectiveCall& call, int iterations, int launches,
                                          const Wait& wait);
  absl::Status Capture(const GraphKey& key, const Wait& wait);
  absl::Status SyncStream(const Wait& wait);

  void FinalizeAndDestroy();
  void FinalizeBlockingWithDeadline();
  bool DrainStream();
  void FreeResources();

  const int rank_;
  const int world_size_;
  const int device_;
  // NCCL keeps the pointer config.commName (init.cc), so the string must
  // live as long as the communicator.
  const std::string comm_name_;
  const absl::Duration op_timeout_;
  const absl::Duration init_timeout_;
  const int cuda_graph_launches_;
  const int compute_capability_;
  const int nccl_version_;
  // True once the collectives run on the blocking communicator split off
  // the nonblocking one (set in Init, read by the destructor).
  bool blocking_data_comm_ = false;

  // Owned by the communicator's thread.
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  cudaEvent_t sync_ = nullptr;
  uint8_t* scratch_ = nullptr;                  // device, kScratchBytes
  unsigned long long* host_counter_ = nullptr;  // pinned host, for the async copy

  AbortGate gate_;
  // Guarded by gate_'s lock: touched only inside gate_.Enter and
  // gate_.BeginAbort callbacks (see the thread model above).
  ncclComm_t comm_ = nullptr;
  // The nonblocking communicator of init while the data communicator is
  // being split off it; null otherwise. Guarded like comm_.
  ncclComm_t init_comm_ = nullptr;
  // Owned by whoever the gate says: the owner between Enter and Leave; after
  // an abort, the aborting thread when BeginAbort found the owner out, else
  // the owner once its Leave returned true.
  GraphCache graphs_{kMaxCachedGraphs};
};

}  // namespace eb::transport::nccl_internal
