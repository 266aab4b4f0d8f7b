// The data-moving half of NcclCommunicator (see nccl_communicator_impl.h):
// collectives, CUDA-graph capture and replay, and the fill/check kernels'
// launches. Every failure after work was enqueued aborts the communicator.

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "common/status/cuda_status.h"
#include "common/status/status_macros.h"
#include "common/transport/cpu_pattern.h"
#include "common/transport/nccl/fill_verify.h"
#include "common/transport/nccl/nccl_collectives.h"
#include "common/transport/nccl/nccl_communicator_impl.h"
#include "common/transport/nccl/nccl_graph_cache.h"
#include "common/transport/nccl/nccl_types.h"
#include "common/transport/pattern.h"
#include "common/transport/types.h"
#include "spdlog/spdlog.h"

namespace eb::transport::nccl_internal {

absl::Status NcclCommunicator::Enqueue(const CollectiveCall& call, const Wait& wait) {
  auto enqueue = [&](ncclComm_t comm) {
    return EnqueueNcclCollective(call,
                                 NcclTarget{comm, stream_, rank_, world_size_, nccl_version_});
  };
  EB_ASSIGN_OR_RETURN(ncclResult_t result, CallNccl(enqueue, wait.what));
  // On a nonblocking communicator the call returns while a background
  // thread launches the kernels (and, the first time, connects the peers).
  // Until it is done, events recorded now would not be behind them, and
  // NCCL refuses the next call on the communicator.
  if (result == ncclInProgress) return WaitCommReady(wait, kLaunchPollInterval);
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
                                                           int iterations, const Wait& wait,
                                                           Poll poll) {
  // nccl-tests -I: one event between consecutive calls (iterations + 1 in
  // all), created for this batch only, so that the plain timed path records
  // exactly what it always did.
  std::vector<cudaEvent_t> marks;
  absl::Cleanup destroy_marks = [&marks] {
    for (cudaEvent_t mark : marks) cudaEventDestroy(mark);
  };
  if (call.iteration_times != nullptr) {
    for (int i = 0; i <= iterations; ++i) {
      cudaEvent_t mark = nullptr;
      EB_CUDA_RETURN_IF_ERROR(cudaEventCreate(&mark));
      marks.push_back(mark);
    }
  }
  EB_RETURN_IF_ERROR(Record(start_, wait.what));
  if (!marks.empty()) EB_RETURN_IF_ERROR(Record(marks[0], wait.what));
  for (int i = 0; i < iterations; ++i) {
    RecordArrival(call);
    EB_RETURN_IF_ERROR(Enqueue(AtIteration(call, i), wait));
    if (!marks.empty()) EB_RETURN_IF_ERROR(Record(marks[static_cast<size_t>(i) + 1], wait.what));
  }
  EB_RETURN_IF_ERROR(Record(stop_, wait.what));
  EB_RETURN_IF_ERROR(WaitEvent(stop_, wait, poll));
  for (size_t i = 0; i + 1 < marks.size(); ++i) {
    float ms = 0;
    EB_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, marks[i], marks[i + 1]));
    call.iteration_times->push_back(absl::Microseconds(static_cast<double>(ms) * 1000.0));
  }
  return Elapsed();
}

absl::Status NcclCommunicator::Capture(const GraphKey& key, const Wait& wait) {
  // Thread-local mode, as nccl-tests: NCCL may cudaMalloc while connecting
  // peers during the capture, which global mode forbids.
  EB_CUDA_RETURN_IF_ERROR(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  absl::Status status;
  for (int i = 0; i < key.iterations && status.ok(); ++i) {
    status = Enqueue(AtIteration(key.call, i), wait);
  }
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
  GateCall gate(*this);
  if (!gate.entered()) {
    DestroyGraph(graph, exec);
    return AbortedError();
  }
  graphs_.Insert(key, graph, exec);
  return absl::OkStatus();
}

absl::StatusOr<absl::Duration> NcclCommunicator::RunGraph(const CollectiveCall& call,
                                                          int iterations, int launches,
                                                          const Wait& wait) {
  GraphKey key{call, iterations};
  key.call.arrivals = nullptr;  // the cache outlives this batch's log
  key.call.iteration_times = nullptr;
  bool cached = false;
  {
    // The cache is touched only through the gate: Abort destroys it.
    GateCall gate(*this);
    if (!gate.entered()) return AbortedError();
    cached = graphs_.Find(key) != nullptr;
  }
  if (!cached) EB_RETURN_IF_ERROR(Capture(key, wait));
  {
    // Launch inside the gate too (no lock is held across it): Abort waits
    // for the launch before it destroys the graph.
    GateCall gate(*this);
    if (!gate.entered()) return AbortedError();
    cudaGraphExec_t exec = graphs_.Find(key);
    if (exec == nullptr) return absl::InternalError("captured graph missing from the cache");
    // nccl-tests -G N: N launches of the graph between the events, the time
    // divided by N.
    EB_RETURN_IF_ERROR(Record(start_, wait.what));
    for (int launch = 0; launch < launches; ++launch) {
      RecordArrival(call);
      EB_CUDA_RETURN_IF_ERROR(cudaGraphLaunch(exec, stream_));
    }
    EB_RETURN_IF_ERROR(Record(stop_, wait.what));
  }
  EB_RETURN_IF_ERROR(WaitEvent(stop_, wait));
  EB_ASSIGN_OR_RETURN(absl::Duration elapsed, Elapsed());
  return elapsed / launches;
}

absl::StatusOr<absl::Duration> NcclCommunicator::Run(const CollectiveCall& call, int iterations) {
  return RunBatch(call, iterations, 1);
}

absl::StatusOr<absl::Duration> NcclCommunicator::RunTimedBatch(const CollectiveCall& call,
                                                               int iterations) {
  return RunBatch(call, iterations, std::max(cuda_graph_launches_, 1));
}

absl::StatusOr<absl::Duration> NcclCommunicator::RunBatch(const CollectiveCall& call,
                                                          int iterations, int launches) {
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
  // `launches` is 1 outside CUDA-graph mode.
  const Wait wait = OpWait(what, BatchBudget(iterations * launches));
  absl::StatusOr<absl::Duration> elapsed = cuda_graph_launches_ > 0
                                               ? RunGraph(call, iterations, launches, wait)
                                               : RunDirect(call, iterations, wait);
  if (!elapsed.ok()) return Fail(elapsed.status());
  return elapsed;
}

absl::Status NcclCommunicator::Barrier() {
  EB_RETURN_IF_ERROR(CheckNotAborted());
  ScopedDevice guard(device_);
  EB_RETURN_IF_ERROR(guard.status());
  // A one-element all_reduce, never captured into a graph. Its wait spins
  // and never sleeps, because the benchmark runner calls Barrier right
  // before each timed batch (as nccl-tests' BenchTime does) and records the
  // batch's start event as soon as it returns. The barrier's kernels finish
  // on all GPUs at nearly the same moment, but a rank that waited long
  // enough to fall back to sleeping between polls (50 us, plus the
  // scheduler's slack) notices up to one sleep later than a rank still
  // spinning. The ranks that start early then time that skew inside their
  // first iterations, and the reported time (the mean over ranks) grows by
  // skew / (2 * iterations). Spinning on every rank bounds the skew to one
  // poll (cudaEventQuery + yield, about a microsecond).
  CollectiveCall call;
  call.collective = Collective::kAllReduce;
  call.type = DataType::kFloat;
  call.op = ReduceOp::kSum;
  call.count = 1;
  call.send = scratch_ + kBarrierOffset;
  call.recv = scratch_ + kBarrierOffset;
  const absl::StatusOr<absl::Duration> elapsed =
      RunDirect(call, 1, OpWait("barrier", op_timeout_), Poll::kSpin);
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
  const Wait wait =
      OpWait(absl::StrCat("filling the input of ", Name(data.call.collective)), op_timeout_);
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
  const Wait wait =
      OpWait(absl::StrCat("checking the output of ", Name(data.call.collective)), op_timeout_);
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
  const auto wrong = static_cast<int64_t>(*host_counter_);
  if (wrong > 0 && wrong == NcclOneRankAvgUnwritten(data.call, world_size_, nccl_version_)) {
    spdlog::warn(
        "nccl rank={}: the {} wrong elements of {} {} avg (count {}, out of place) are the ones "
        "NCCL {}.{}.{} leaves unwritten with one rank (NVIDIA/nccl#1950, fixed in 2.29.7): a "
        "bug of the library, not of the GPU or the fabric",
        rank_, wrong, Name(data.call.collective), Name(data.call.type), data.call.count,
        nccl_version_ / 10000, nccl_version_ / 100 % 100, nccl_version_ % 100);
  }
  return wrong;
}

}  // namespace eb::transport::nccl_internal
