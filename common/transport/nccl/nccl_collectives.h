#pragma once

// Enqueues one CollectiveCall on a stream through NCCL, with nccl-tests
// semantics (src/*.cu RunColl): the pointers are used exactly as the call
// gives them, so in-place calls are NCCL's in-place forms.
//
//   all_reduce, all_gather, reduce_scatter, broadcast, reduce: the NCCL
//     collective of the same name (broadcast is ncclBroadcast, root = call.root).
//   alltoall: ncclAlltoAll when the *runtime* library is 2.28.0 or newer
//     and exports it, else one group of ncclSend/ncclRecv per peer (what
//     nccl-tests does on older NCCL).
//   sendrecv: the ring shift; one group of ncclSend to (r+1)%n and ncclRecv
//     from (r-1+n)%n.

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "common/transport/communicator.h"

namespace eb::transport {

// What EnqueueNcclCollective needs besides the call.
struct NcclTarget {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  int rank = 0;
  int world_size = 1;
  int nccl_version = 0;  // ncclGetVersion of the loaded library
};

// Issues `call` (count > 0, validated by the caller) on target.stream.
// Returns NCCL's result unchanged: with a nonblocking communicator that may
// be ncclInProgress, which the caller must poll with ncclCommGetAsyncError
// before recording events behind the call. A failed call inside a group
// still closes the group (ncclGroupEnd), so the thread's group depth stays
// balanced; the first error is returned. Runs on the communicator's thread
// (NCCL group state is per thread); must not race with ncclCommAbort.
ncclResult_t EnqueueNcclCollective(const CollectiveCall& call, const NcclTarget& target);

// True when EnqueueNcclCollective uses ncclAlltoAll for this library
// version (and the symbol is present), false for the send/recv fallback.
bool UsesNcclAlltoAll(int nccl_version);

}  // namespace eb::transport
