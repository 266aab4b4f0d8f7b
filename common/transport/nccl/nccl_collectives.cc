#include "common/transport/nccl/nccl_collectives.h"

#include <cstddef>
#include <cstdint>

#include "common/transport/nccl/nccl_types.h"
#include "common/transport/types.h"

// We build against 2.28.9 headers, but the GPU machine runs 2.28.3 and a
// fleet may run older libraries. A weak reference lets the binary load on
// a libnccl without ncclAlltoAll (its address is then null) instead of
// failing at load time or at the first call under BIND_NOW.
#pragma weak ncclAlltoAll

namespace eb::transport {
namespace {

// One group of point-to-point calls; the first error wins, and the group is
// always closed.
template <typename Body>
ncclResult_t Grouped(Body&& body) {
  ncclResult_t result = ncclGroupStart();
  if (result != ncclSuccess) return result;
  const ncclResult_t first = body();
  const ncclResult_t end = ncclGroupEnd();
  return first != ncclSuccess ? first : end;
}

ncclResult_t AllToAllBySendRecv(const CollectiveCall& call, const NcclTarget& t,
                                ncclDataType_t type) {
  const size_t chunk_bytes = call.count * DataTypeSize(call.type);
  const auto* send = static_cast<const uint8_t*>(call.send);
  auto* recv = static_cast<uint8_t*>(call.recv);
  return Grouped([&]() -> ncclResult_t {
    for (int peer = 0; peer < t.world_size; ++peer) {
      const size_t offset = static_cast<size_t>(peer) * chunk_bytes;
      ncclResult_t r = ncclSend(send + offset, call.count, type, peer, t.comm, t.stream);
      if (r != ncclSuccess) return r;
      r = ncclRecv(recv + offset, call.count, type, peer, t.comm, t.stream);
      if (r != ncclSuccess) return r;
    }
    return ncclSuccess;
  });
}

ncclResult_t RingShift(const CollectiveCall& call, const NcclTarget& t, ncclDataType_t type) {
  const int next = (t.rank + 1) % t.world_size;
  const int prev = (t.rank - 1 + t.world_size) % t.world_size;
  return Grouped([&]() -> ncclResult_t {
    const ncclResult_t r = ncclSend(call.send, call.count, type, next, t.comm, t.stream);
    if (r != ncclSuccess) return r;
    return ncclRecv(call.recv, call.count, type, prev, t.comm, t.stream);
  });
}

}  // namespace

bool UsesNcclAlltoAll(int nccl_version) {
  return nccl_version >= kNcclAlltoAllVersion && &ncclAlltoAll != nullptr;
}

ncclResult_t EnqueueNcclCollective(const CollectiveCall& call, const NcclTarget& t) {
  const ncclDataType_t type = ToNcclDataType(call.type);
  const ncclRedOp_t op = ToNcclRedOp(call.op);
  switch (call.collective) {
    case Collective::kAllReduce:
      return ncclAllReduce(call.send, call.recv, call.count, type, op, t.comm, t.stream);
    case Collective::kAllGather:
      return ncclAllGather(call.send, call.recv, call.count, type, t.comm, t.stream);
    case Collective::kReduceScatter:
      return ncclReduceScatter(call.send, call.recv, call.count, type, op, t.comm, t.stream);
    case Collective::kBroadcast:
      return ncclBroadcast(call.send, call.recv, call.count, type, call.root, t.comm, t.stream);
    case Collective::kReduce:
      return ncclReduce(call.send, call.recv, call.count, type, op, call.root, t.comm, t.stream);
    case Collective::kAllToAll:
      if (UsesNcclAlltoAll(t.nccl_version)) {
        return ncclAlltoAll(call.send, call.recv, call.count, type, t.comm, t.stream);
      }
      return AllToAllBySendRecv(call, t, type);
    case Collective::kSendRecv:
      return RingShift(call, t, type);
  }
  return ncclInvalidArgument;
}

}  // namespace eb::transport
