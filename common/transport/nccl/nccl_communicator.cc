#include "common/transport/nccl/nccl_communicator.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/status/cuda_status.h"
#include "common/status/status_macros.h"
#include "common/transport/cpu_pattern.h"
#include "common/transport/nccl/fill_verify.h"
#include "common/transport/nccl/nccl_collectives.h"
#include "common/transport/nccl/nccl_device.h"
#include "common/transport/nccl/nccl_graph_cache.h"
#include "common/transport/nccl/nccl_types.h"
#include "common/transport/nccl/nccl_unique_id.h"
#include "common/transport/pattern.h"
#include "common/transport/types.h"
#include "spdlog/spdlog.h"

namespace eb::transport {
namespace {

// Init polls NCCL every millisecond (it takes seconds; the poll is free).
constexpr absl::Duration kCommPollInterval = absl::Milliseconds(1);
// Stream waits spin (yield) this many polls before sleeping between polls:
// the measured time comes from CUDA events, so polling only costs CPU.
constexpr int kSpinPolls = 1000;
constexpr absl::Duration kEventPollInterval = absl::Microseconds(50);
// Run's budget is op_timeout per call, but never more than this (unless
// op_timeout itself is longer): a hang is found within the hour.
constexpr absl::Duration kMaxBatchBudget = absl::Hours(1);
// Graphs kept per communicator: the benchmark alternates between two call
// shapes per placement (1 call, `iterations` calls).
constexpr size_t kMaxCachedGraphs = 8;
// How long the destructor waits for the stream to drain before freeing
// memory that kernels may still use. Kernels of an aborted communicator
// exit on NCCL's abort flag; a stream that never drains means a wedged GPU,
// where cudaFree would block forever, so the memory is leaked instead.
constexpr absl::Duration kDrainTimeout = absl::Seconds(10);
// Internal device scratch: the CountWrong counter, then the barrier value.
constexpr size_t kCounterOffset = 0;
constexpr size_t kBarrierOffset = 8;
constexpr size_t kScratchBytes = 16;

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

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(const NcclOptions& options, const DeviceInfo& device, int nccl_version)
      : rank_(options.rank),
        world_size_(options.world_size),
        device_(options.cuda_device),
        comm_name_(options.comm_name),
        op_timeout_(options.op_timeout),
        init_timeout_(options.init_timeout),
        cuda_graph_(options.cuda_graph),
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
  absl::Status CheckCall(const CollectiveCall& call) const;
  absl::Status CheckPattern(const DataPattern& pattern) const;
  absl::Status CheckNotAborted() ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status AbortedErrorLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return absl::AbortedError(absl::StrCat("nccl communicator aborted: ", abort_reason_));
  }

  // Aborts the communicator with `status` as the reason (a no-op after an
  // earlier abort, whose reason stays) and returns `status`. Every failure
  // after work was enqueued goes through here: NCCL's state is unknown
  // afterwards, and peers blocked on this rank are released sooner.
  absl::Status Fail(absl::Status status) ABSL_LOCKS_EXCLUDED(mu_);

  // Calls fn(comm_) under mu_, so that it never races ncclCommAbort.
  // Returns ncclSuccess or ncclInProgress; an error as a status built while
  // the communicator is alive (ncclGetLastError needs it); ABORTED after
  // Abort. Never aborts by itself.
  absl::StatusOr<ncclResult_t> CallNccl(absl::FunctionRef<ncclResult_t(ncclComm_t)> fn,
                                        absl::string_view what) ABSL_LOCKS_EXCLUDED(mu_);
  // Polls ncclCommGetAsyncError until the communicator leaves
  // ncclInProgress (after init, finalize, or a nonblocking group launch).
  absl::Status WaitCommReady(const Wait& wait) ABSL_LOCKS_EXCLUDED(mu_);
  // Polls cudaEventQuery(event) and the communicator's async error.
  absl::Status WaitEvent(cudaEvent_t event, const Wait& wait) ABSL_LOCKS_EXCLUDED(mu_);

  absl::Status Enqueue(const CollectiveCall& call, const Wait& wait) ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status Record(cudaEvent_t event, absl::string_view what);
  absl::StatusOr<absl::Duration> Elapsed();
  absl::StatusOr<absl::Duration> RunDirect(const CollectiveCall& call, int iterations,
                                           const Wait& wait) ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<absl::Duration> RunGraph(const CollectiveCall& call, int iterations,
                                          const Wait& wait) ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status Capture(const GraphKey& key, const Wait& wait) ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status SyncStream(const Wait& wait);

  void FinalizeAndDestroy() ABSL_LOCKS_EXCLUDED(mu_);
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
  const bool cuda_graph_;
  const int compute_capability_;
  const int nccl_version_;

  // Owned by the communicator's thread.
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  cudaEvent_t sync_ = nullptr;
  uint8_t* scratch_ = nullptr;          // device, kScratchBytes
  unsigned long long* host_counter_ = nullptr;  // pinned host, for the async copy

  absl::Mutex mu_;
  ncclComm_t comm_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool aborted_ ABSL_GUARDED_BY(mu_) = false;
  // True while Abort runs ncclCommAbort outside the lock; the destructor
  // waits for it.
  bool abort_running_ ABSL_GUARDED_BY(mu_) = false;
  std::string abort_reason_ ABSL_GUARDED_BY(mu_);
  // Under mu_ because Abort must destroy the graphs before ncclCommAbort.
  GraphCache graphs_ ABSL_GUARDED_BY(mu_){kMaxCachedGraphs};
};

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
  const ncclResult_t result = ncclCommInitRankConfig(&comm, world_size_, id, rank_, &config);
  absl::Status status;
  {
    absl::MutexLock lock(&mu_);
    comm_ = comm;  // even on failure: a half-made communicator is aborted
    if (result != ncclSuccess && result != ncclInProgress) {
      status = common::NcclResultToStatus(result, comm, "ncclCommInitRankConfig");
    }
  }
  if (!status.ok()) return Fail(status);
  const std::string timeout = absl::StrCat(
      "init timed out after ", absl::FormatDuration(init_timeout_), " (", Where(), ")");
  status = WaitCommReady(Wait{deadline, "NCCL init", timeout});
  if (!status.ok()) return Fail(status);
  spdlog::info("nccl communicator ready: rank={} world={} device={} sm_{} nccl={} comm='{}' in {}",
               rank_, world_size_, device_, compute_capability_, nccl_version_, comm_name_,
               absl::FormatDuration(absl::Now() - started));
  return absl::OkStatus();
}

NcclCommunicator::~NcclCommunicator() {
  ScopedDevice guard(device_);
  bool clean = false;
  {
    absl::MutexLock lock(&mu_);
    // An Abort on another thread may still be inside ncclCommAbort.
    mu_.Await(absl::Condition(
        +[](bool* running) { return !*running; }, &abort_running_));
    clean = !aborted_ && comm_ != nullptr;
    // Graphs go before finalize: NCCL's finalize waits for every graph
    // that references the communicator (nccl_graph_cache.h).
    if (!aborted_) graphs_.Clear();
  }
  if (clean) FinalizeAndDestroy();
  if (DrainStream()) {
    FreeResources();
  } else {
    spdlog::error("nccl communicator rank={} device={}: the stream did not drain within {}; "
                  "leaking its buffers rather than blocking in cudaFree",
                  rank_, device_, absl::FormatDuration(kDrainTimeout));
  }
}

void NcclCommunicator::FinalizeAndDestroy() {
  // ncclCommFinalize flushes outstanding work; nonblocking, so it is polled
  // like init. If it fails or wedges, abort instead of destroying.
  const Wait wait = OpWait("ncclCommFinalize", op_timeout_);
  absl::StatusOr<ncclResult_t> result = CallNccl(ncclCommFinalize, wait.what);
  absl::Status status = result.status();
  if (result.ok() && *result == ncclInProgress) status = WaitCommReady(wait);
  if (!status.ok()) {
    spdlog::warn("nccl communicator rank={}: finalize failed, aborting: {}", rank_,
                 status.ToString());
    Abort(status.ToString());
    return;
  }
  absl::MutexLock lock(&mu_);
  if (aborted_ || comm_ == nullptr) return;
  // After a completed finalize, destroy only frees local resources.
  const ncclResult_t destroyed = ncclCommDestroy(comm_);
  if (destroyed != ncclSuccess && destroyed != ncclInProgress) {
    spdlog::warn("nccl communicator rank={}: {}", rank_,
                 common::NcclResultToStatus(destroyed, nullptr, "ncclCommDestroy").ToString());
  }
  comm_ = nullptr;
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
  {
    absl::MutexLock lock(&mu_);
    if (aborted_) return;
    aborted_ = true;
    abort_reason_ = std::string(reason);
    abort_running_ = true;
    // Before ncclCommAbort, which waits for graphs referencing the comm.
    graphs_.Clear();
    comm = comm_;
    comm_ = nullptr;
  }
  spdlog::warn("nccl communicator rank={} world={} device={} aborted: {}", rank_, world_size_,
               device_, std::string(reason));
  if (comm != nullptr) {
    // Outside the lock: ncclCommAbort can wait for a graph the
    // communicator's thread is still capturing, and that thread needs the
    // lock to notice the abort and drop the graph. No one else can reach
    // `comm` any more: comm_ is null and aborted_ is set.
    const ncclResult_t result = ncclCommAbort(comm);
    if (result != ncclSuccess && result != ncclInProgress) {
      spdlog::warn("nccl communicator rank={}: ncclCommAbort: {}", rank_,
                   ncclGetErrorString(result));
    }
  }
  absl::MutexLock lock(&mu_);
  abort_running_ = false;
}

// ---- helpers --------------------------------------------------------------

absl::Status NcclCommunicator::CheckNotAborted() {
  absl::MutexLock lock(&mu_);
  if (aborted_) return AbortedErrorLocked();
  return absl::OkStatus();
}

absl::Status NcclCommunicator::Fail(absl::Status status) {
  Abort(status.ToString());
  return status;
}

absl::Status NcclCommunicator::CheckCall(const CollectiveCall& call) const {
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

absl::StatusOr<ncclResult_t> NcclCommunicator::CallNccl(
    absl::FunctionRef<ncclResult_t(ncclComm_t)> fn, absl::string_view what) {
  absl::MutexLock lock(&mu_);
  if (aborted_) return AbortedErrorLocked();
  if (comm_ == nullptr) return absl::InternalError(absl::StrCat(what, ": no NCCL communicator"));
  const ncclResult_t result = fn(comm_);
  if (result == ncclSuccess || result == ncclInProgress) return result;
  return common::NcclResultToStatus(result, comm_, what);
}

absl::Status NcclCommunicator::WaitCommReady(const Wait& wait) {
  while (true) {
    EB_ASSIGN_OR_RETURN(ncclResult_t state, CallNccl(AsyncState, wait.what));
    if (state == ncclSuccess) return absl::OkStatus();
    if (absl::Now() >= wait.deadline) return absl::DeadlineExceededError(wait.timeout);
    absl::SleepFor(kCommPollInterval);
  }
}

absl::Status NcclCommunicator::WaitEvent(cudaEvent_t event, const Wait& wait) {
  for (int polls = 0;; ++polls) {
    const cudaError_t done = cudaEventQuery(event);
    if (done == cudaSuccess) return absl::OkStatus();
    if (done != cudaErrorNotReady) return common::CudaErrorToStatus(done, wait.what);
    // An async error (a peer or the network failed) would otherwise only
    // surface as a timeout. ncclInProgress here is a background launch.
    EB_RETURN_IF_ERROR(CallNccl(AsyncState, wait.what).status());
    if (absl::Now() >= wait.deadline) return absl::DeadlineExceededError(wait.timeout);
    if (polls < kSpinPolls) {
      std::this_thread::yield();
    } else {
      absl::SleepFor(kEventPollInterval);
    }
  }
}

absl::Status NcclCommunicator::Enqueue(const CollectiveCall& call, const Wait& wait) {
  auto enqueue = [&](ncclComm_t comm) {
    return EnqueueNcclCollective(call,
                                 NcclTarget{comm, stream_, rank_, world_size_, nccl_version_});
  };
  EB_ASSIGN_OR_RETURN(ncclResult_t result, CallNccl(enqueue, wait.what));
  // A nonblocking communicator may still be issuing the kernels from a
  // background thread (e.g. while connecting peers lazily); events recorded
  // now would not be behind them.
  if (result == ncclInProgress) return WaitCommReady(wait);
  return absl::OkStatus();
}

absl::Status NcclCommunicator::Record(cudaEvent_t event, absl::string_view what) {
  return common::CudaErrorToStatus(cudaEventRecord(event, stream_), what);
}

absl::StatusOr<absl::Duration> NcclCommunicator::Elapsed() {
  float ms = 0;
  EB_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, start_, stop_));
  return absl::Microseconds(static_cast<double>(ms) * 1000.0);
}

absl::Status NcclCommunicator::SyncStream(const Wait& wait) {
  EB_RETURN_IF_ERROR(Record(sync_, wait.what));
  return WaitEvent(sync_, wait);
}

// ---- collectives ----------------------------------------------------------

absl::StatusOr<absl::Duration> NcclCommunicator::RunDirect(const CollectiveCall& call,
                                                           int iterations, const Wait& wait) {
  EB_RETURN_IF_ERROR(Record(start_, wait.what));
  for (int i = 0; i < iterations; ++i) EB_RETURN_IF_ERROR(Enqueue(call, wait));
  EB_RETURN_IF_ERROR(Record(stop_, wait.what));
  EB_RETURN_IF_ERROR(WaitEvent(stop_, wait));
  return Elapsed();
}

absl::Status NcclCommunicator::Capture(const GraphKey& key, const Wait& wait) {
  // Thread-local mode, as nccl-tests: NCCL may cudaMalloc while connecting
  // peers during the capture, which global mode forbids.
  EB_CUDA_RETURN_IF_ERROR(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  absl::Status status;
  for (int i = 0; i < key.iterations && status.ok(); ++i) status = Enqueue(key.call, wait);
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
  // The capture ends before any abort: the partial graph holds references
  // to the communicator that ncclCommAbort would wait for.
  if (!status.ok()) {
    DestroyGraph(graph, nullptr);
    return status;
  }
  EB_RETURN_IF_ERROR(common::CudaErrorToStatus(ended, "cudaStreamEndCapture"));
  cudaGraphExec_t exec = nullptr;
  const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
  if (instantiated != cudaSuccess) {
    DestroyGraph(graph, nullptr);
    return common::CudaErrorToStatus(instantiated, "cudaGraphInstantiate");
  }
  absl::MutexLock lock(&mu_);
  if (aborted_) {
    DestroyGraph(graph, exec);
    return AbortedErrorLocked();
  }
  graphs_.Insert(key, graph, exec);
  return absl::OkStatus();
}

absl::StatusOr<absl::Duration> NcclCommunicator::RunGraph(const CollectiveCall& call,
                                                          int iterations, const Wait& wait) {
  const GraphKey key{call, iterations};
  bool cached = false;
  {
    absl::MutexLock lock(&mu_);
    if (aborted_) return AbortedErrorLocked();
    cached = graphs_.Find(key) != nullptr;
  }
  if (!cached) EB_RETURN_IF_ERROR(Capture(key, wait));
  {
    // Launch under the lock: Abort destroys cached graphs.
    absl::MutexLock lock(&mu_);
    if (aborted_) return AbortedErrorLocked();
    cudaGraphExec_t exec = graphs_.Find(key);
    if (exec == nullptr) return absl::InternalError("captured graph missing from the cache");
    EB_RETURN_IF_ERROR(Record(start_, wait.what));
    EB_CUDA_RETURN_IF_ERROR(cudaGraphLaunch(exec, stream_));
    EB_RETURN_IF_ERROR(Record(stop_, wait.what));
  }
  EB_RETURN_IF_ERROR(WaitEvent(stop_, wait));
  return Elapsed();
}

absl::StatusOr<absl::Duration> NcclCommunicator::Run(const CollectiveCall& call, int iterations) {
  if (iterations < 1) {
    return absl::InvalidArgumentError(absl::StrCat("iterations: must be >= 1, got ", iterations));
  }
  EB_RETURN_IF_ERROR(CheckCall(call));
  EB_RETURN_IF_ERROR(CheckNotAborted());
  // NCCL would accept count 0, but there is nothing to move or time; every
  // rank sees the same count, so all skip alike.
  if (call.count == 0) return absl::ZeroDuration();
  ScopedDevice guard(device_);
  EB_RETURN_IF_ERROR(guard.status());

  pattern::PatternSpec spec;
  spec.collective = call.collective;
  spec.nranks = world_size_;
  spec.root = call.root;
  spec.count = call.count;
  const uint64_t elements =
      std::max(pattern::SendElements(spec), pattern::RecvElements(spec, call.root));
  const std::string what = absl::StrCat("collective ", Name(call.collective), " of ",
                                        elements * DataTypeSize(call.type), " bytes");
  const Wait wait = OpWait(what, BatchBudget(iterations));
  absl::StatusOr<absl::Duration> elapsed =
      cuda_graph_ ? RunGraph(call, iterations, wait) : RunDirect(call, iterations, wait);
  if (!elapsed.ok()) return Fail(elapsed.status());
  return elapsed;
}

absl::Status NcclCommunicator::Barrier() {
  EB_RETURN_IF_ERROR(CheckNotAborted());
  ScopedDevice guard(device_);
  EB_RETURN_IF_ERROR(guard.status());
  // A one-element all_reduce, never captured into a graph.
  CollectiveCall call;
  call.collective = Collective::kAllReduce;
  call.type = DataType::kFloat;
  call.op = ReduceOp::kSum;
  call.count = 1;
  call.send = scratch_ + kBarrierOffset;
  call.recv = scratch_ + kBarrierOffset;
  const absl::StatusOr<absl::Duration> elapsed =
      RunDirect(call, 1, OpWait("barrier", op_timeout_));
  if (!elapsed.ok()) return Fail(elapsed.status());
  return absl::OkStatus();
}

// ---- data checks ----------------------------------------------------------

absl::Status NcclCommunicator::FillInput(const DataPattern& data) {
  EB_RETURN_IF_ERROR(CheckPattern(data));
  EB_RETURN_IF_ERROR(CheckNotAborted());
  if (data.call.count == 0) return absl::OkStatus();
  ScopedDevice guard(device_);
  EB_RETURN_IF_ERROR(guard.status());
  const pattern::PatternSpec spec = ToPatternSpec(data);
  const size_t poison_bytes = pattern::RecvElements(spec, rank_) * DataTypeSize(data.call.type);
  const Wait wait = OpWait(absl::StrCat("filling the input of ", Name(data.call.collective)),
                           op_timeout_);
  absl::Status status = common::CudaErrorToStatus(
      cudaMemsetAsync(data.call.recv, 0xFF, poison_bytes, stream_), "poisoning the receive region");
  if (status.ok()) {
    status = common::CudaErrorToStatus(
        LaunchDeviceFill(spec, data.call.type, rank_, const_cast<void*>(data.call.send), stream_),
        "fill kernel");
  }
  if (status.ok()) status = SyncStream(wait);
  if (!status.ok()) return Fail(status);
  return absl::OkStatus();
}

absl::StatusOr<int64_t> NcclCommunicator::CountWrong(const DataPattern& data) {
  EB_RETURN_IF_ERROR(CheckPattern(data));
  EB_RETURN_IF_ERROR(CheckNotAborted());
  if (data.call.count == 0) return 0;
  const pattern::PatternSpec spec = ToPatternSpec(data);
  if (pattern::RecvElements(spec, rank_) == 0) return 0;  // reduce on a non-root
  // NCCL defines no output here (nccl-tests prints no #wrong either).
  if (IsUncheckableInPlace(data.call, world_size_)) return 0;
  ScopedDevice guard(device_);
  EB_RETURN_IF_ERROR(guard.status());
  auto* counter = reinterpret_cast<unsigned long long*>(scratch_ + kCounterOffset);
  const uint32_t tolerance =
      VerifyUlpTolerance(data.call.collective, data.call.type, data.call.op, world_size_);
  const Wait wait = OpWait(absl::StrCat("checking the output of ", Name(data.call.collective)),
                           op_timeout_);
  absl::Status status = common::CudaErrorToStatus(
      cudaMemsetAsync(counter, 0, sizeof(*counter), stream_), "clearing the wrong-element counter");
  if (status.ok()) {
    status = common::CudaErrorToStatus(
        LaunchDeviceCountWrong(spec, data.call.type, rank_, data.call.recv, tolerance, counter,
                               stream_),
        "verify kernel");
  }
  if (status.ok()) {
    status = common::CudaErrorToStatus(
        cudaMemcpyAsync(host_counter_, counter, sizeof(*counter), cudaMemcpyDeviceToHost, stream_),
        "copying the wrong-element counter");
  }
  if (status.ok()) status = SyncStream(wait);
  if (!status.ok()) return Fail(status);
  return static_cast<int64_t>(*host_counter_);
}

}  // namespace

absl::StatusOr<int> NcclRuntimeVersion() {
  int version = 0;
  EB_NCCL_RETURN_IF_ERROR(ncclGetVersion(&version));
  return version;
}

absl::StatusOr<std::unique_ptr<Communicator>> CreateNcclCommunicator(const NcclOptions& options,
                                                                     RendezvousStore& store) {
  EB_RETURN_IF_ERROR(ValidateOptions(options));
  const absl::Time deadline = absl::Now() + options.init_timeout;
  EB_ASSIGN_OR_RETURN(DeviceInfo device, QueryDevice(options.cuda_device));
  if (device.compute_capability < kMinComputeCapability) {
    return absl::UnimplementedError(absl::StrCat(
        "cuda_device: ", options.cuda_device, " is sm_", device.compute_capability,
        "; the NCCL transport is built for sm_", kMinComputeCapability, " and newer"));
  }
  // Binds this thread (the communicator's) to its GPU for good: NCCL's init
  // and our kernels use the current device.
  EB_RETURN_IF_ERROR(common::CudaErrorToStatus(
      cudaSetDevice(options.cuda_device), absl::StrCat("cudaSetDevice(", options.cuda_device, ")")));
  EB_ASSIGN_OR_RETURN(int nccl_version, NcclRuntimeVersion());
  auto comm = std::make_unique<NcclCommunicator>(options, device, nccl_version);
  EB_RETURN_IF_ERROR(comm->Init(store, deadline));
  return std::unique_ptr<Communicator>(std::move(comm));
}

}  // namespace eb::transport
