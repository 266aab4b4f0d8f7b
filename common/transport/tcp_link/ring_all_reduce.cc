#include "common/transport/tcp_link/ring_all_reduce.h"

#include <algorithm>
#include <vector>

#include "common/status/status_macros.h"

namespace eb::transport {
namespace {

// The chunks and segments of one call, in elements. Every chunk has the
// same number of segments, of `segment` elements each but for its last
// (which may be shorter or empty), so that segment k of any chunk fits in
// scratch slot k (offset k * segment) and two steps' segments never share
// a slot.
struct Layout {
  size_t count;
  int n;
  size_t segment;   // elements per segment
  size_t segments;  // per chunk

  size_t ChunkStart(int c) const {
    const auto uc = static_cast<size_t>(c);
    const size_t base = count / static_cast<size_t>(n);
    const size_t extra = count % static_cast<size_t>(n);
    return uc * base + std::min(uc, extra);
  }
  size_t ChunkLength(int c) const { return ChunkStart(c + 1) - ChunkStart(c); }
  // Segment k of chunk c: its first element (within the buffer) and length.
  size_t SegmentStart(int c, size_t k) const {
    return ChunkStart(c) + std::min(k * segment, ChunkLength(c));
  }
  size_t SegmentLength(int c, size_t k) const {
    const size_t length = ChunkLength(c);
    const size_t begin = std::min(k * segment, length);
    return std::min(begin + segment, length) - begin;
  }
};

Layout LayoutOf(size_t count, size_t element_bytes, int n, size_t segment_bytes) {
  Layout layout{count, n, std::max<size_t>(1, segment_bytes / element_bytes), 1};
  const size_t longest = (count + static_cast<size_t>(n) - 1) / static_cast<size_t>(n);
  layout.segments = std::max<size_t>(1, (longest + layout.segment - 1) / layout.segment);
  return layout;
}

int Mod(int a, int n) { return ((a % n) + n) % n; }

}  // namespace

size_t RingAllReduceScratchBytes(size_t count, size_t element_bytes, int world_size,
                                 size_t segment_bytes) {
  if (world_size < 2) return 0;
  const Layout layout = LayoutOf(count, element_bytes, world_size, segment_bytes);
  return layout.segments * layout.segment * element_bytes;
}

absl::Status RingAllReduce(RingLinks& links, const void* send, void* recv, size_t count,
                           size_t element_bytes, RingReduceFn reduce, void* scratch,
                           LinkClock::time_point deadline, size_t segment_bytes) {
  const int n = links.world_size();
  const int r = links.rank();
  const auto* in = static_cast<const char*>(send);
  auto* out = static_cast<char*>(recv);
  auto* temp = static_cast<char*>(scratch);
  const Layout L = LayoutOf(count, element_bytes, n, segment_bytes);
  const size_t e = element_bytes;
  const size_t segments = L.segments;
  // The receive pending for each segment slot, and the last send posted
  // (the sender runs in order, so waiting for it waits for all).
  std::vector<uint64_t> pending(segments);
  uint64_t last_send = 0;
  auto send_segment = [&](const char* base, int chunk, size_t k) {
    last_send = links.PostSend(base + L.SegmentStart(chunk, k) * e, L.SegmentLength(chunk, k) * e,
                               deadline);
  };
  auto recv_segment = [&](char* dst, int chunk, size_t k) {
    pending[k] = links.PostRecv(dst, L.SegmentLength(chunk, k) * e, deadline);
  };

  // Reduce-scatter. Messages are posted in (step, segment) order on both
  // links, the order in which the neighbours post theirs.
  for (size_t k = 0; k < segments; ++k) {
    recv_segment(temp + k * L.segment * e, Mod(r - 1, n), k);
  }
  for (size_t k = 0; k < segments; ++k) send_segment(in, r, k);
  for (int step = 0; step < n - 1; ++step) {
    const int chunk = Mod(r - step - 1, n);
    for (size_t k = 0; k < segments; ++k) {
      EB_RETURN_IF_ERROR(links.WaitRecv(pending[k], deadline));
      char* slot = temp + k * L.segment * e;
      const size_t at = L.SegmentStart(chunk, k) * e;
      reduce(out + at, in + at, slot, L.SegmentLength(chunk, k));
      // The reduced segment goes on at once: to the next reduce-scatter
      // step, or, fully reduced after the last, to the all-gather.
      send_segment(out, chunk, k);
      if (step < n - 2) {
        recv_segment(slot, Mod(r - step - 2, n), k);
      } else {
        recv_segment(out + L.SegmentStart(r, k) * e, r, k);
      }
    }
  }
  // All-gather: chunk r-s arrives straight in the output and goes on.
  for (int step = 0; step < n - 1; ++step) {
    const int chunk = Mod(r - step, n);
    for (size_t k = 0; k < segments; ++k) {
      EB_RETURN_IF_ERROR(links.WaitRecv(pending[k], deadline));
      if (step < n - 2) {
        send_segment(out, chunk, k);
        const int next_chunk = Mod(r - step - 1, n);
        recv_segment(out + L.SegmentStart(next_chunk, k) * e, next_chunk, k);
      }
    }
  }
  return links.WaitSend(last_send, deadline);
}

}  // namespace eb::transport
