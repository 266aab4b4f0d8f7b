#include "common/transport/nccl/nccl_communicator.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "common/status/cuda_status.h"
#include "common/status/status_macros.h"
#include "common/transport/nccl/nccl_communicator_impl.h"
#include "common/transport/nccl/nccl_device.h"
#include "common/transport/nccl/nccl_graph_cache.h"
#include "common/transport/nccl/nccl_types.h"
#include "common/transport/nccl/nccl_unique_id.h"
#include "common/transport/types.h"
#include "spdlog/spdlog.h"

namespace eb::transport {
namespace nccl_internal {
namespace {

// Every wait first spins (yields) this many polls, then sleeps between
// polls. Spinning matters after a collective call: on a nonblocking
// communicator every call returns ncclInProgress while a background thread
// launches its kernel, and the next call must wait for it (NCCL refuses a
// communicator whose last operation is still in progress), so a sleep
// there would put idle gaps between the timed kernels.
constexpr int kSpinPolls = 1000;
// Sleep between polls after the spin: init and finalize take seconds, so
// 1 ms is free there; waits on the stream use a short sleep.
constexpr absl::Duration kSlowPollInterval = absl::Milliseconds(1);
constexpr absl::Duration kEventPollInterval = absl::Microseconds(50);
// Poll::kSpin: the async error and the deadline once per this many polls,
// so each poll is just cudaEventQuery and a yield (about a microsecond).
constexpr int kSpinCheckEvery = 16;
// How long the destructor waits for the stream to drain before freeing
// memory that kernels may still use. Kernels of an aborted communicator
// exit on NCCL's abort flag; a stream that never drains means a wedged GPU,
// where cudaFree would block forever, so the memory is leaked instead.
constexpr absl::Duration kDrainTimeout = absl::Seconds(10);

absl::Status ValidateOptions(const NcclOptions& o) {
  if (o.world_size < 1) {
    return absl::InvalidArgumentError(absl::StrCat("world_size: must be >= 1, got ", o.world_size));
  }
  if (o.rank < 0 || o.rank >= o.world_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("rank: ", o.rank, " is outside [0, ", o.world_size, ")"));
  }
  if (o.cuda_device < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cuda_device: must be >= 0, got ", o.cuda_device));
  }
  if (o.cuda_graph_launches < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cuda_graph_launches: must be >= 0, got ", o.cuda_graph_launches));
  }
  if (o.init_timeout < absl::Milliseconds(1)) {
    return absl::InvalidArgumentError(absl::StrCat("init_timeout: must be at least 1ms, got ",
                                                   absl::FormatDuration(o.init_timeout)));
  }
  if (o.op_timeout < absl::Milliseconds(1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("op_timeout: must be at least 1ms, got ", absl::FormatDuration(o.op_timeout)));
  }
  return absl::OkStatus();
}

// ncclCommGetAsyncError folded into one result: the query's own error, or
// the communicator's state (ncclSuccess, ncclInProgress or its error).
ncclResult_t AsyncState(ncclComm_t comm) {
  ncclResult_t state = ncclSuccess;
  const ncclResult_t query = ncclCommGetAsyncError(comm, &state);
  return query != ncclSuccess ? query : state;
}

}  // namespace

// ---- lifecycle ------------------------------------------------------------

absl::Status NcclCommunicator::CreateResources() {
  EB_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  EB_CUDA_RETURN_IF_ERROR(cudaEventCreate(&start_));
  EB_CUDA_RETURN_IF_ERROR(cudaEventCreate(&stop_));
  EB_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&sync_, cudaEventDisableTiming));
  void* scratch = nullptr;
  EB_CUDA_RETURN_IF_ERROR(cudaMalloc(&scratch, kScratchBytes));
  scratch_ = static_cast<uint8_t*>(scratch);
  EB_CUDA_RETURN_IF_ERROR(cudaMemset(scratch_, 0, kScratchBytes));
  void* host = nullptr;
  EB_CUDA_RETURN_IF_ERROR(cudaMallocHost(&host, sizeof(unsigned long long)));
  host_counter_ = static_cast<unsigned long long*>(host);
  return absl::OkStatus();
}

absl::Status NcclCommunicator::Init(RendezvousStore& store, absl::Time deadline) {
  const absl::Time started = absl::Now();
  EB_RETURN_IF_ERROR(CreateResources());
  EB_ASSIGN_OR_RETURN(ncclUniqueId id, ExchangeNcclUniqueId(rank_, world_size_, store, deadline));

  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  if (!comm_name_.empty()) config.commName = comm_name_.c_str();
  ncclComm_t comm = nullptr;
  EB_RETURN_IF_ERROR(CheckNotAborted());
  const ncclResult_t result = ncclCommInitRankConfig(&comm, world_size_, id, rank_, &config);
  absl::Status status;
  if (result != ncclSuccess && result != ncclInProgress) {
    // Before publishing: only this thread can reach `comm` yet.
    status = common::NcclResultToStatus(result, comm, "ncclCommInitRankConfig");
  }
  // Published even on failure: a half-made communicator is aborted.
  bool published = false;
  {
    GateCall call(*this, [&] { comm_ = comm; });
    published = call.entered();
  }
  if (!published) {
    // Aborted while NCCL's init was being started: Abort found no handle.
    if (comm != nullptr) (void)ncclCommAbort(comm);
    return AbortedError();
  }
  if (!status.ok()) return Fail(status);
  const std::string timeout = absl::StrCat("init timed out after ",
                                           absl::FormatDuration(init_timeout_), " (", Where(), ")");
  status = WaitCommReady(Wait{deadline, "NCCL init", timeout}, kSlowPollInterval);
  if (!status.ok()) return Fail(status);
  EB_RETURN_IF_ERROR(SplitBlockingDataComm(deadline));
  spdlog::info("nccl communicator ready: rank={} world={} device={} sm_{} nccl={} comm='{}' in {}",
               rank_, world_size_, device_, compute_capability_, nccl_version_, comm_name_,
               absl::FormatDuration(absl::Now() - started));
  return absl::OkStatus();
}

absl::Status NcclCommunicator::SplitBlockingDataComm(absl::Time deadline) {
  // On a nonblocking communicator NCCL launches every group (so every
  // collective) from a new background thread and returns ncclInProgress,
  // which costs tens of microseconds per call and would dominate small-size
  // latency. So init stays nonblocking (the only way to give it a deadline
  // and abort it), and the collectives run on a blocking child split off
  // it, which launches on the caller's thread like nccl-tests. Timeouts
  // still work there: waits poll the stream and ncclCommGetAsyncError, and
  // ncclCommAbort may be called on a blocking communicator too.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 1;
  if (!comm_name_.empty()) config.commName = comm_name_.c_str();
  ncclComm_t child = nullptr;
  ncclResult_t result = ncclSuccess;
  absl::Status status;
  {
    ncclComm_t parent = nullptr;
    GateCall call(*this, [&] { parent = comm_; });
    if (!call.entered()) return AbortedError();
    // Nonblocking parent: returns at once; the split runs as its job.
    result = ncclCommSplit(parent, /*color=*/0, /*key=*/rank_, &child, &config);
    if (result != ncclSuccess && result != ncclInProgress) {
      status = common::NcclResultToStatus(result, parent, "ncclCommSplit");
    }
  }
  if (!status.ok()) return Fail(status);
  const std::string timeout =
      absl::StrCat("splitting the data communicator timed out (", Where(), ")");
  const Wait wait{deadline, "ncclCommSplit", timeout};
  // Split off a nonblocking parent runs as the parent's background job,
  // which writes `child` when done: wait on the parent first.
  if (result == ncclInProgress || child == nullptr) {
    status = WaitCommReady(wait, kSlowPollInterval);
    if (!status.ok()) return Fail(status);
  }
  if (child == nullptr) {
    // Not expected; keep going on the nonblocking communicator, slower for
    // small sizes but correct.
    spdlog::warn(
        "nccl communicator rank={}: ncclCommSplit gave no communicator; the "
        "collectives run on the nonblocking one",
        rank_);
    return absl::OkStatus();
  }
  bool swapped = false;
  {
    GateCall call(*this, [&] {
      init_comm_ = comm_;
      comm_ = child;
    });
    swapped = call.entered();
  }
  if (!swapped) {
    (void)ncclCommAbort(child);  // Abort took only the parent
    return AbortedError();
  }
  blocking_data_comm_ = true;
  status = WaitCommReady(wait, kSlowPollInterval);
  if (!status.ok()) return Fail(status);
  // The init communicator is no longer needed; its resources are its own
  // (splitShare = 0). Finalize is nonblocking on it, so it is polled. Each
  // call goes through the gate: Abort may take init_comm_ meanwhile.
  constexpr ncclComm_t NcclCommunicator::*kInit = &NcclCommunicator::init_comm_;
  absl::StatusOr<ncclResult_t> state = CallNcclOn(kInit, ncclCommFinalize, "ncclCommFinalize");
  // At least one query even after ncclSuccess: it completes NCCL's group job.
  while (state.ok()) {
    state = CallNcclOn(kInit, AsyncState, "ncclCommFinalize");
    if (!state.ok() || *state != ncclInProgress || absl::Now() >= deadline) break;
    absl::SleepFor(kSlowPollInterval);
  }
  if (gate_.aborted()) return AbortedError();
  ncclComm_t parent = nullptr;
  {
    GateCall call(*this, [&] { parent = std::exchange(init_comm_, nullptr); });
    if (!call.entered()) return AbortedError();  // Abort took the parent
  }
  if (state.ok() && *state == ncclSuccess) {
    (void)ncclCommDestroy(parent);
  } else {
    (void)ncclCommAbort(parent);
  }
  return absl::OkStatus();
}

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

// ---- helpers --------------------------------------------------------------

absl::Status NcclCommunicator::Fail(absl::Status status) {
  Abort(status.ToString());
  return status;
}

absl::Status NcclCommunicator::CheckCall(const CollectiveCall& call) const {
  if (!Row(call.type).nccl_avg && IsReducing(call.collective) && call.op == ReduceOp::kAvg) {
    // NCCL answers ncclInvalidArgument (seen with 2.28.3 on H200).
    return absl::UnimplementedError(
        absl::StrCat("reduce_op: NCCL has no avg for ", Name(call.type)));
  }
  if (IsRooted(call.collective) && (call.root < 0 || call.root >= world_size_)) {
    return absl::InvalidArgumentError(
        absl::StrCat("root: ", call.root, " is outside [0, ", world_size_, ")"));
  }
  if (call.count > 0 && (call.send == nullptr || call.recv == nullptr)) {
    return absl::InvalidArgumentError("call: send and recv must not be null");
  }
  return CheckDeviceSupports(call.type, call.collective, compute_capability_);
}

absl::Status NcclCommunicator::CheckPattern(const DataPattern& pattern) const {
  if (pattern.world_size != world_size_) {
    return absl::InvalidArgumentError(absl::StrCat("world_size: pattern has ", pattern.world_size,
                                                   ", communicator ", world_size_));
  }
  return CheckCall(pattern.call);
}

absl::StatusOr<ncclResult_t> NcclCommunicator::CallNcclOn(
    ncclComm_t NcclCommunicator::*handle, absl::FunctionRef<ncclResult_t(ncclComm_t)> fn,
    absl::string_view what) {
  {
    ncclComm_t comm = nullptr;
    GateCall call(*this, [&] { comm = this->*handle; });
    if (!call.entered()) return AbortedError();
    if (comm == nullptr) return absl::InternalError(absl::StrCat(what, ": no NCCL communicator"));
    // Outside every lock: this is the call that may block.
    const ncclResult_t result = fn(comm);
    if (result == ncclSuccess || result == ncclInProgress) return result;
    if (!gate_.aborted()) return common::NcclResultToStatus(result, comm, what);
  }
  // An Abort broke this call (NCCL's abort flag): report the abort.
  return AbortedError();
}

absl::Status NcclCommunicator::WaitCommReady(const Wait& wait, absl::Duration sleep) {
  for (int polls = 0;; ++polls) {
    EB_ASSIGN_OR_RETURN(ncclResult_t state, CallNccl(AsyncState, wait.what));
    if (state == ncclSuccess) return absl::OkStatus();
    if (absl::Now() >= wait.deadline) return absl::DeadlineExceededError(wait.timeout);
    if (polls < kSpinPolls) {
      std::this_thread::yield();
    } else {
      absl::SleepFor(sleep);
    }
  }
}

absl::Status NcclCommunicator::WaitEvent(cudaEvent_t event, const Wait& wait, Poll poll) {
  const bool spin = poll == Poll::kSpin;
  for (int polls = 0;; ++polls) {
    const cudaError_t done = cudaEventQuery(event);
    if (done == cudaSuccess) return absl::OkStatus();
    if (done != cudaErrorNotReady) return common::CudaErrorToStatus(done, wait.what);
    if (!spin || polls % kSpinCheckEvery == 0) {
      // An async error (a peer or the network failed) would otherwise only
      // surface as a timeout. ncclInProgress here is a background launch.
      EB_RETURN_IF_ERROR(CallNccl(AsyncState, wait.what).status());
      if (absl::Now() >= wait.deadline) return absl::DeadlineExceededError(wait.timeout);
    }
    if (spin || polls < kSpinPolls) {
      std::this_thread::yield();
    } else {
      absl::SleepFor(kEventPollInterval);
    }
  }
}

}  // namespace nccl_internal

absl::StatusOr<int> NcclRuntimeVersion() {
  int version = 0;
  EB_NCCL_RETURN_IF_ERROR(ncclGetVersion(&version));
  return version;
}

absl::StatusOr<std::unique_ptr<Communicator>> CreateNcclCommunicator(const NcclOptions& options,
                                                                     RendezvousStore& store) {
  EB_RETURN_IF_ERROR(nccl_internal::ValidateOptions(options));
  const absl::Time deadline = absl::Now() + options.init_timeout;
  EB_ASSIGN_OR_RETURN(DeviceInfo device, QueryDevice(options.cuda_device));
  if (device.compute_capability < kMinComputeCapability) {
    return absl::UnimplementedError(
        absl::StrCat("cuda_device: ", options.cuda_device, " is sm_", device.compute_capability,
                     "; the NCCL transport is built for sm_", kMinComputeCapability, " and newer"));
  }
  // Binds this thread (the communicator's) to its GPU for good: NCCL's init
  // and our kernels use the current device.
  EB_RETURN_IF_ERROR(
      common::CudaErrorToStatus(cudaSetDevice(options.cuda_device),
                                absl::StrCat("cudaSetDevice(", options.cuda_device, ")")));
  // The agent's GPU i must be CUDA's device i: otherwise this rank would
  // measure another GPU than the one its report names.
  EB_RETURN_IF_ERROR(
      CheckDevicePciBusId(options.cuda_device, options.gpu_pci_bus_id, options.rank));
  EB_ASSIGN_OR_RETURN(int nccl_version, NcclRuntimeVersion());
  // Connect every peer during init, which has a deadline and can be
  // aborted, rather than lazily inside the first collective: on the blocking
  // data communicator a lazy connect to a peer that never calls would block
  // the caller with no deadline, and CUDA-graph capture cannot connect peers
  // (NCCL: "operation not permitted when stream is capturing"). It also keeps
  // connection set-up out of the first timed call. Forced, whatever the
  // operator's environment says: the deadlines depend on it.
  if (const char* set = std::getenv("NCCL_RUNTIME_CONNECT");
      set != nullptr && std::string(set) != "0") {
    spdlog::warn(
        "rank={}: NCCL_RUNTIME_CONNECT={} ignored: peers are connected during the "
        "deadline-guarded init (NCCL_RUNTIME_CONNECT=0)",
        options.rank, set);
  }
  setenv("NCCL_RUNTIME_CONNECT", "0", /*overwrite=*/1);
  auto comm = std::make_unique<nccl_internal::NcclCommunicator>(options, device, nccl_version);
  EB_RETURN_IF_ERROR(comm->Init(store, deadline));
  return std::unique_ptr<Communicator>(std::move(comm));
}

}  // namespace eb::transport
