// NcclCommunicator's making (see nccl_communicator_impl.h): the factory's
// checks of the device and the environment, the stream, events and scratch
// memory, NCCL's nonblocking init with a deadline, and the blocking data
// communicator split off it.

#include "common/transport/nccl/nccl_communicator.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/status/cuda_status.h"
#include "common/status/status_macros.h"
#include "common/transport/nccl/nccl_communicator_impl.h"
#include "common/transport/nccl/nccl_device.h"
#include "common/transport/nccl/nccl_types.h"
#include "common/transport/nccl/nccl_unique_id.h"
#include "spdlog/spdlog.h"

namespace eb::transport {
namespace nccl_internal {
namespace {

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

}  // namespace

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
  const Wait wait{deadline, "ncclCommSplit",
                  absl::StrCat("splitting the data communicator timed out (", Where(), ")")};
  EB_ASSIGN_OR_RETURN(ncclComm_t child, SplitOffInitComm(&config, wait));
  if (child == nullptr) {
    // Not expected; keep going on the nonblocking communicator, slower for
    // small sizes but correct.
    spdlog::warn(
        "nccl communicator rank={}: ncclCommSplit gave no communicator; the "
        "collectives run on the nonblocking one",
        rank_);
    return absl::OkStatus();
  }
  EB_RETURN_IF_ERROR(SwapInDataComm(child, wait));
  return ReleaseInitComm(deadline);
}

absl::StatusOr<ncclComm_t> NcclCommunicator::SplitOffInitComm(ncclConfig_t* config,
                                                              const Wait& wait) {
  ncclComm_t child = nullptr;
  ncclResult_t result = ncclSuccess;
  absl::Status status;
  {
    ncclComm_t parent = nullptr;
    GateCall call(*this, [&] { parent = comm_; });
    if (!call.entered()) return AbortedError();
    // Nonblocking parent: returns at once; the split runs as its job.
    result = ncclCommSplit(parent, /*color=*/0, /*key=*/rank_, &child, config);
    if (result != ncclSuccess && result != ncclInProgress) {
      status = common::NcclResultToStatus(result, parent, "ncclCommSplit");
    }
  }
  if (!status.ok()) return Fail(status);
  // Split off a nonblocking parent runs as the parent's background job,
  // which writes `child` when done: wait on the parent first.
  if (result == ncclInProgress || child == nullptr) {
    status = WaitCommReady(wait, kSlowPollInterval);
    if (!status.ok()) return Fail(status);
  }
  return child;
}

absl::Status NcclCommunicator::SwapInDataComm(ncclComm_t child, const Wait& wait) {
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
  const absl::Status status = WaitCommReady(wait, kSlowPollInterval);
  if (!status.ok()) return Fail(status);
  return absl::OkStatus();
}

absl::Status NcclCommunicator::ReleaseInitComm(absl::Time deadline) {
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
