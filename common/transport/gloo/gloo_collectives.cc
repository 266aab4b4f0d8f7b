#include "common/transport/gloo/gloo_collectives.h"

#include <cstring>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/transport/gloo/gloo_errors.h"
#include "common/transport/host_type_dispatch.h"
#include "common/transport/pattern.h"
#include "common/transport/tcp_link/ring_all_reduce.h"
#include "common/transport/types.h"
#include "gloo/allgather.h"
#include "gloo/alltoall.h"
#include "gloo/barrier.h"
#include "gloo/broadcast.h"
#include "gloo/reduce.h"
#include "gloo/transport/unbound_buffer.h"
#include "gloo/types.h"

namespace eb::transport {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr absl::string_view kWho = "the gloo transport";

// Slot prefix of our own unbound-buffer protocol. Gloo's collectives use
// 0x01..0x08 (gloo/types.h); a distinct prefix keeps a message of one
// protocol from ever matching a receive of another. (0xE2 was sendrecv's
// while it ran on Gloo.)
constexpr uint8_t kReduceScatterSlotPrefix = 0xE1;

// Gloo's element-wise reduction signature: out[i] = a[i] op b[i].
using ReduceFn = void (*)(void*, const void*, const void*, size_t);

// Our reduction functions instead of gloo::sum & co.: they compute exactly
// as pattern.h's expectation does (integers wrap in the unsigned type of
// the same width, no signed-overflow UB). `out` may alias `a` or `b`.
template <typename T, ReduceOp kOp>
void ReduceElements(void* out, const void* a, const void* b, size_t n) {
  T* o = static_cast<T*>(out);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) o[i] = pattern::Combine<T>(kOp, x[i], y[i]);
}

template <typename T>
ReduceFn ReduceFor(ReduceOp op) {
  switch (op) {
    case ReduceOp::kProd:
      return &ReduceElements<T, ReduceOp::kProd>;
    case ReduceOp::kMin:
      return &ReduceElements<T, ReduceOp::kMin>;
    case ReduceOp::kMax:
      return &ReduceElements<T, ReduceOp::kMax>;
    case ReduceOp::kSum:
    case ReduceOp::kAvg:  // rejected by CheckGlooCall
      break;
  }
  return &ReduceElements<T, ReduceOp::kSum>;
}

// Waits are bounded by one deadline per call; Gloo treats 0 as "check once",
// so at least 1 ms is passed to let a just-finished transfer complete.
milliseconds Remaining(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
  return left < milliseconds(1) ? milliseconds(1) : left;
}

size_t RecvElementsAnyRank(const CollectiveCall& call, int n) {
  return RecvElementsOf(call.collective, call.count, n);
}

size_t SendElements(const CollectiveCall& call, int n) {
  return SendElementsOf(call.collective, call.count, n);
}

// True when the pointers are exactly nccl-tests' in-place form.
bool IsExactInPlace(const CollectiveCall& call, int rank) {
  const auto send = reinterpret_cast<uintptr_t>(call.send);
  const auto recv = reinterpret_cast<uintptr_t>(call.recv);
  const uintptr_t chunk = call.count * DataTypeSize(call.type) * static_cast<uintptr_t>(rank);
  switch (Row(call.collective).in_place) {
    case InPlaceForm::kSendAtRankChunk:
      return send == recv + chunk;
    case InPlaceForm::kRecvAtRankChunk:
      return recv == send + chunk;
    case InPlaceForm::kSameBuffer:
      return send == recv;
  }
  return false;
}

bool Overlaps(const void* a, size_t a_bytes, const void* b, size_t b_bytes) {
  const auto x = reinterpret_cast<uintptr_t>(a);
  const auto y = reinterpret_cast<uintptr_t>(b);
  return x < y + b_bytes && y < x + a_bytes;
}

// How a call maps onto Gloo: scratch[0, stage_bytes) receives a copy of the
// send data when Gloo cannot read it in place; scratch[stage_bytes,
// stage_bytes + work_bytes) is work space.
struct Placement {
  bool in_place = false;  // use Gloo's in-place form (output buffer only)
  size_t stage_bytes = 0;
  size_t work_bytes = 0;
};

Placement PlaceCall(const CollectiveCall& call, int rank, int n) {
  const size_t elt = DataTypeSize(call.type);
  const size_t send_bytes = SendElements(call, n) * elt;
  const size_t recv_bytes = RecvElementsAnyRank(call, n) * elt;
  const bool reads_send = !(Row(call.collective).only_root_sends && rank != call.root);
  Placement p;
  if (IsExactInPlace(call, rank)) {
    if (Row(call.collective).in_place_overwrites_unsent) {
      p.stage_bytes = send_bytes;  // received chunks would overwrite unsent ones
    } else {
      p.in_place = true;
    }
  } else if (reads_send && Overlaps(call.send, send_bytes, call.recv, recv_bytes)) {
    p.stage_bytes = send_bytes;
  }
  if (call.collective == Collective::kReduce && rank != call.root) {
    p.work_bytes = call.count * elt;  // Gloo's reduce writes partial sums there
  }
  if (call.collective == Collective::kReduceScatter && n > 1) {
    p.work_bytes = 2 * call.count * elt;  // accumulator + incoming chunk
  }
  if (call.collective == Collective::kAllReduce && n > 1) {
    p.work_bytes = RingAllReduceScratchBytes(call.count, elt, n);  // incoming segments
  }
  return p;
}

// Ring reduce-scatter: n-1 steps; in step s rank r sends chunk (r-s-1) (its
// own input at s == 0, then what it accumulated) to r+1, receives chunk
// (r-s-2) from r-1 and adds its own input of that chunk. After the last step
// rank r holds chunk r reduced over all ranks. Every rank sends exactly
// (n-1)/n of its input: bandwidth-optimal, like NCCL's ring.
template <typename T>
absl::Status RingReduceScatter(gloo::Context& ctx, const T* send, T* recv, size_t count, T* work,
                               ReduceOp op, Clock::time_point deadline) {
  const int n = ctx.size;
  const int r = ctx.rank;
  const size_t chunk_bytes = count * sizeof(T);
  if (n == 1) {
    if (recv != send) std::memmove(recv, send, chunk_bytes);
    return absl::OkStatus();
  }
  T* acc = work;
  T* incoming = work + count;
  auto send_buf = ctx.createUnboundBuffer(const_cast<T*>(send), chunk_bytes * n);
  auto acc_buf = ctx.createUnboundBuffer(acc, chunk_bytes);
  auto in_buf = ctx.createUnboundBuffer(incoming, chunk_bytes);
  const uint64_t slot = gloo::Slot::build(kReduceScatterSlotPrefix, 0);
  const ReduceFn reduce = ReduceFor<T>(op);
  const int next = (r + 1) % n;
  const int prev = (r - 1 + n) % n;
  for (int step = 0; step < n - 1; ++step) {
    const int send_chunk = ((r - step - 1) % n + n) % n;
    const int recv_chunk = ((r - step - 2) % n + n) % n;
    in_buf->recv(prev, slot);
    gloo::transport::UnboundBuffer* out = step == 0 ? send_buf.get() : acc_buf.get();
    if (step == 0) {
      out->send(next, slot, send_chunk * chunk_bytes, chunk_bytes);
    } else {
      out->send(next, slot);
    }
    // Both must finish before the accumulator is overwritten below.
    if (!in_buf->waitRecv(Remaining(deadline)) || !out->waitSend(Remaining(deadline))) {
      return absl::InternalError("reduce_scatter: a gloo wait was interrupted");
    }
    // The last step writes straight into the output; in place, that is this
    // rank's own input chunk, read only here and element by element.
    T* dst = step == n - 2 ? recv : acc;
    reduce(dst, incoming, send + static_cast<size_t>(recv_chunk) * count, count);
  }
  return absl::OkStatus();
}

// Ring shift: send to r+1, receive from r-1, on our own ring links: a
// blocking sender thread and a blocking receiver thread per process, each
// with a connection of its own (tcp_link/ring_links.h). Two Gloo lanes,
// each direction on the loop thread of its own Gloo device, reached
// 0.44-0.52x of one iperf3 stream on a quiet 2-core machine, where
// blocking streams moved ~1.5x as much (docs/BENCHMARKS.md §10). The
// caller stages an in-place call (PlaceCall), so `send` and `recv` never
// overlap.
absl::Status RingShift(const GlooLanes& lanes, const void* send, void* recv, size_t bytes,
                       Clock::time_point deadline) {
  if (lanes.mesh->size == 1) {
    if (recv != send) std::memmove(recv, send, bytes);
    return absl::OkStatus();
  }
  return lanes.ring->Shift(send, recv, bytes, deadline);
}

// One call on typed buffers. `send` is the (possibly staged) input.
template <typename T>
absl::Status RunTyped(const GlooLanes& lanes, const CollectiveCall& call, const Placement& p,
                      const T* send_in, T* work, milliseconds timeout, Clock::time_point deadline) {
  const std::shared_ptr<gloo::Context>& ctx = lanes.mesh;
  const int n = ctx->size;
  const size_t count = call.count;
  T* send = const_cast<T*>(send_in);  // Gloo's setters take T*; they only read it
  T* recv = static_cast<T*>(call.recv);
  switch (call.collective) {
    case Collective::kAllReduce:
      // Our ring on the ring links, not Gloo's ring all_reduce (with 4 MiB
      // segments, its best): measured faster over loopback and a veth pair
      // (docs/BENCHMARKS.md §10, round 3). In place, `send` is the output
      // itself (Placement), which the ring allows.
      if (n == 1) {
        if (recv != send) std::memmove(recv, send, count * sizeof(T));
        return absl::OkStatus();
      }
      return RingAllReduce(*lanes.ring, send, recv, count, sizeof(T), ReduceFor<T>(call.op), work,
                           deadline);
    case Collective::kAllGather: {
      gloo::AllgatherOptions opts(ctx);
      if (!p.in_place) opts.setInput(send, count);
      opts.setOutput(recv, count * n);
      opts.setTimeout(timeout);
      gloo::allgather(opts);
      return absl::OkStatus();
    }
    case Collective::kReduceScatter:
      return RingReduceScatter<T>(*ctx, send, recv, count, work, call.op, deadline);
    case Collective::kBroadcast: {
      gloo::BroadcastOptions opts(ctx);
      // Gloo forbids an input on non-roots; in place the root's output is
      // its input.
      if (ctx->rank == call.root && !p.in_place) opts.setInput(send, count);
      opts.setOutput(recv, count);
      opts.setRoot(call.root);
      opts.setTimeout(timeout);
      gloo::broadcast(opts);
      return absl::OkStatus();
    }
    case Collective::kReduce: {
      gloo::ReduceOptions opts(ctx);
      const bool root = ctx->rank == call.root;
      if (!(root && p.in_place)) opts.setInput(send, count);
      opts.setOutput(root ? recv : work, count);
      opts.setRoot(call.root);
      opts.setReduceFunction(ReduceFor<T>(call.op));
      opts.setTimeout(timeout);
      gloo::reduce(opts);
      return absl::OkStatus();
    }
    case Collective::kAllToAll: {
      gloo::AlltoallOptions opts(ctx);
      opts.setInput(send, count * n);
      opts.setOutput(recv, count * n);
      opts.setTimeout(timeout);
      gloo::alltoall(opts);
      return absl::OkStatus();
    }
    case Collective::kSendRecv:
      return RingShift(lanes, send, recv, count * sizeof(T), deadline);
  }
  return absl::InternalError("unknown collective");
}

}  // namespace

absl::StatusOr<uint8_t*> GlooScratch::Reserve(size_t bytes) {
  if (memory_.data() == nullptr || memory_.size() < bytes) {
    absl::StatusOr<HostMemory> grown = HostMemory::Allocate(bytes);
    if (!grown.ok()) return grown.status();
    memory_ = std::move(grown).value();
  }
  return memory_.data();
}

absl::Status CheckGlooCall(const CollectiveCall& call, int world_size) {
  if (IsRooted(call.collective) && (call.root < 0 || call.root >= world_size)) {
    return absl::InvalidArgumentError(
        absl::StrCat("root: ", call.root, " is outside [0, ", world_size, ")"));
  }
  if (call.count > 0 && (call.send == nullptr || call.recv == nullptr)) {
    return absl::InvalidArgumentError("call: send and recv must not be null");
  }
  if (call.count > std::numeric_limits<size_t>::max() / 8 / static_cast<size_t>(world_size)) {
    return absl::InvalidArgumentError(absl::StrCat("count: ", call.count, " is too large"));
  }
  if (IsReducing(call.collective) && call.op == ReduceOp::kAvg) {
    return absl::UnimplementedError(absl::StrCat("op: avg is not supported by ", kWho));
  }
  return DispatchHostType(call.type, kWho, []<typename T>() { return absl::OkStatus(); });
}

size_t GlooScratchBytes(const CollectiveCall& call, int rank, int world_size) {
  if (call.count == 0) return 0;
  const Placement p = PlaceCall(call, rank, world_size);
  return p.stage_bytes + p.work_bytes;
}

absl::Status RunGlooCollective(const GlooLanes& lanes, const CollectiveCall& call,
                               milliseconds timeout, uint8_t* scratch) {
  if (call.count == 0) return absl::OkStatus();
  const std::shared_ptr<gloo::Context>& context = lanes.mesh;
  const Placement p = PlaceCall(call, context->rank, context->size);
  const void* send = call.send;
  if (p.stage_bytes > 0) {
    std::memcpy(scratch, call.send, p.stage_bytes);
    send = scratch;
  }
  uint8_t* work = scratch + p.stage_bytes;
  const Clock::time_point deadline = Clock::now() + timeout;
  const std::string what = absl::StrCat("gloo ", Name(call.collective));
  return DispatchHostType(call.type, kWho, [&]<typename T>() {
    absl::Status result;
    absl::Status thrown = CallGloo(what, [&] {
      result = RunTyped<T>(lanes, call, p, static_cast<const T*>(send), reinterpret_cast<T*>(work),
                           timeout, deadline);
    });
    return thrown.ok() ? result : thrown;
  });
}

absl::Status RunGlooBarrier(const std::shared_ptr<gloo::Context>& context, milliseconds timeout) {
  return CallGloo("gloo barrier", [&] {
    gloo::BarrierOptions opts(context);
    opts.setTimeout(timeout);
    gloo::barrier(opts);
  });
}

}  // namespace eb::transport
