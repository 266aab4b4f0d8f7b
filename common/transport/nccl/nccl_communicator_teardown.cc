// NcclCommunicator's end (see nccl_communicator_impl.h): finalize and
// destroy with deadlines, the stream drained before its memory is freed,
// and Abort, which any thread may call at any time.

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "common/status/cuda_status.h"
#include "common/transport/nccl/nccl_communicator_impl.h"
#include "common/transport/nccl/nccl_device.h"
#include "spdlog/spdlog.h"

namespace eb::transport::nccl_internal {
namespace {

// How long the destructor waits for the stream to drain before freeing
// memory that kernels may still use. Kernels of an aborted communicator
// exit on NCCL's abort flag; a stream that never drains means a wedged GPU,
// where cudaFree would block forever, so the memory is leaked instead.
constexpr absl::Duration kDrainTimeout = absl::Seconds(10);

}  // namespace

NcclCommunicator::~NcclCommunicator() {
  ScopedDevice guard(device_);
  // An Abort on another thread may still be inside ncclCommAbort. It never
  // waits for this thread there: a graph cleanup it left to the owner was
  // done when the owner's stuck call returned (GateCall).
  gate_.AwaitAbortDone();
  bool clean = false;
  {
    GateCall call(*this);
    clean = call.entered() && comm_ != nullptr;
    // Graphs go before finalize: NCCL's finalize waits for every graph
    // that references the communicator (nccl_graph_cache.h).
    if (call.entered()) graphs_.Clear();
  }
  if (clean) FinalizeAndDestroy();
  if (DrainStream()) {
    FreeResources();
  } else {
    spdlog::error(
        "nccl communicator rank={} device={}: the stream did not drain within {}; "
        "leaking its buffers rather than blocking in cudaFree",
        rank_, device_, absl::FormatDuration(kDrainTimeout));
  }
}

void NcclCommunicator::FinalizeAndDestroy() {
  if (blocking_data_comm_) {
    FinalizeBlockingWithDeadline();
    return;
  }
  // ncclCommFinalize flushes outstanding work; nonblocking, so it is polled
  // like init. If it fails or wedges, abort instead of destroying.
  const Wait wait = OpWait("ncclCommFinalize", op_timeout_);
  absl::StatusOr<ncclResult_t> result = CallNccl(ncclCommFinalize, wait.what);
  absl::Status status = result.status();
  if (result.ok() && *result == ncclInProgress) status = WaitCommReady(wait, kSlowPollInterval);
  if (!status.ok()) {
    spdlog::warn("nccl communicator rank={}: finalize failed, aborting: {}", rank_,
                 status.ToString());
    Abort(status.ToString());
    return;
  }
  // Take the handle out of Abort's reach (a later Abort is then a no-op),
  // then destroy it outside the gate's lock.
  ncclComm_t comm = nullptr;
  const AbortGate::Begun closed = gate_.BeginAbort("the communicator was destroyed",
                                                   [&] { comm = std::exchange(comm_, nullptr); });
  if (!closed.first) return;
  if (comm != nullptr) {
    // After a completed finalize, destroy only frees local resources.
    const ncclResult_t destroyed = ncclCommDestroy(comm);
    if (destroyed != ncclSuccess && destroyed != ncclInProgress) {
      spdlog::warn("nccl communicator rank={}: {}", rank_,
                   common::NcclResultToStatus(destroyed, nullptr, "ncclCommDestroy").ToString());
    }
  }
  gate_.EndAbort();
}

void NcclCommunicator::FinalizeBlockingWithDeadline() {
  // On the blocking data communicator ncclCommFinalize blocks until NCCL has
  // flushed everything, which needs the peers: after a peer's failure it can
  // wait forever. So it runs on a helper thread with the op deadline; past
  // it the helper is left behind (the worker exits right after teardown)
  // rather than the owner hanging.
  ncclComm_t comm = nullptr;
  // Nothing may use the communicator any more; a later Abort is a no-op.
  const AbortGate::Begun closed = gate_.BeginAbort("the communicator was destroyed",
                                                   [&] { comm = std::exchange(comm_, nullptr); });
  if (!closed.first) return;
  absl::Cleanup end_abort = [this] { gate_.EndAbort(); };
  if (comm == nullptr) return;
  auto done = std::make_shared<absl::Notification>();
  const int device = device_;
  std::thread finalizer([comm, done, device] {
    (void)cudaSetDevice(device);
    if (ncclCommFinalize(comm) == ncclSuccess) {
      (void)ncclCommDestroy(comm);
    } else {
      (void)ncclCommAbort(comm);
    }
    done->Notify();
  });
  if (done->WaitForNotificationWithTimeout(op_timeout_)) {
    finalizer.join();
  } else {
    spdlog::warn("nccl communicator rank={}: finalize did not complete within {}; left behind",
                 rank_, absl::FormatDuration(op_timeout_));
    finalizer.detach();
  }
}

bool NcclCommunicator::DrainStream() {
  if (stream_ == nullptr) return true;
  const absl::Time deadline = absl::Now() + kDrainTimeout;
  while (true) {
    const cudaError_t state = cudaStreamQuery(stream_);
    if (state == cudaSuccess) return true;
    if (state != cudaErrorNotReady) {
      // A failed stream (sticky error) runs nothing more; freeing is safe.
      (void)cudaGetLastError();
      return true;
    }
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(absl::Milliseconds(1));
  }
}

void NcclCommunicator::FreeResources() {
  // Best effort: errors are logged, never thrown or returned.
  auto check = [&](cudaError_t error, const char* what) {
    if (error != cudaSuccess) {
      spdlog::warn("nccl communicator rank={}: {}", rank_,
                   common::CudaErrorToStatus(error, what).ToString());
    }
  };
  if (host_counter_ != nullptr) check(cudaFreeHost(host_counter_), "cudaFreeHost");
  if (scratch_ != nullptr) check(cudaFree(scratch_), "cudaFree");
  if (sync_ != nullptr) check(cudaEventDestroy(sync_), "cudaEventDestroy");
  if (stop_ != nullptr) check(cudaEventDestroy(stop_), "cudaEventDestroy");
  if (start_ != nullptr) check(cudaEventDestroy(start_), "cudaEventDestroy");
  if (stream_ != nullptr) check(cudaStreamDestroy(stream_), "cudaStreamDestroy");
  host_counter_ = nullptr;
  scratch_ = nullptr;
  sync_ = stop_ = start_ = nullptr;
  stream_ = nullptr;
}

void NcclCommunicator::Abort(absl::string_view reason) {
  ScopedDevice guard(device_);  // restores a foreign caller's device
  ncclComm_t comm = nullptr;
  ncclComm_t init_comm = nullptr;
  // Marks the gate aborted (no new call starts), takes the handles, and
  // waits up to the grace for a call in progress. No lock is held after it.
  const AbortGate::Begun begun = gate_.BeginAbort(reason, [&] {
    comm = std::exchange(comm_, nullptr);
    init_comm = std::exchange(init_comm_, nullptr);
  });
  if (!begun.first) return;
  spdlog::warn("nccl communicator rank={} world={} device={} aborted: {}", rank_, world_size_,
               device_, std::string(reason));
  if (begun.owner_out) {
    // Before ncclCommAbort, which waits for graphs referencing the comm. The
    // owner can no longer reach them: the gate is closed.
    graphs_.Clear();
  } else {
    // The owner is stuck inside an NCCL call (e.g. a launch on a full work
    // FIFO). ncclCommAbort sets NCCL's abort flag first, which releases it;
    // the owner then destroys the graphs, which ncclCommAbort waits for.
    spdlog::warn(
        "nccl communicator rank={}: an NCCL call is still in progress after {}; "
        "aborting under it to release it",
        rank_, absl::FormatDuration(AbortGate::kDefaultGrace));
  }
  if (comm != nullptr) {
    const ncclResult_t result = ncclCommAbort(comm);
    if (result != ncclSuccess && result != ncclInProgress) {
      spdlog::warn("nccl communicator rank={}: ncclCommAbort: {}", rank_,
                   ncclGetErrorString(result));
    }
  }
  if (init_comm != nullptr) (void)ncclCommAbort(init_comm);
  gate_.EndAbort();
}

void NcclCommunicator::CleanUpAfterAbort() {
  spdlog::warn(
      "nccl communicator rank={}: the NCCL call an abort broke has returned; "
      "destroying the CUDA graphs",
      rank_);
  graphs_.Clear();
}

}  // namespace eb::transport::nccl_internal
