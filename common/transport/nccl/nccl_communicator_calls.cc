// NcclCommunicator's calls into NCCL through the abort gate, the checks of
// a call before it is made, and the polling waits every deadline rests on
// (see nccl_communicator_impl.h).

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/status/cuda_status.h"
#include "common/status/status_macros.h"
#include "common/transport/nccl/nccl_communicator_impl.h"
#include "common/transport/nccl/nccl_device.h"
#include "common/transport/nccl/nccl_types.h"
#include "common/transport/types.h"

namespace eb::transport::nccl_internal {
namespace {

// Every wait first spins (yields) this many polls, then sleeps between
// polls. Spinning matters after a collective call: on a nonblocking
// communicator every call returns ncclInProgress while a background thread
// launches its kernel, and the next call must wait for it (NCCL refuses a
// communicator whose last operation is still in progress), so a sleep
// there would put idle gaps between the timed kernels.
constexpr int kSpinPolls = 1000;
// Sleep between polls of the stream after the spin: short, unlike init's
// and finalize's kSlowPollInterval.
constexpr absl::Duration kEventPollInterval = absl::Microseconds(50);
// Poll::kSpin: the async error and the deadline once per this many polls,
// so each poll is just cudaEventQuery and a yield (about a microsecond).
constexpr int kSpinCheckEvery = 16;

}  // namespace

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

}  // namespace eb::transport::nccl_internal
