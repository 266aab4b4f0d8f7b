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
  // The reduce-scatter send of step s, segment k: the all-gather's receive
  // into the same chunk waits for it (below).
  std::vector<uint64_t> scattered(static_cast<size_t>(n - 1) * segments);
  auto send_segment = [&](const char* base, int chunk, size_t k) {
    last_send = links.PostSend(base + L.SegmentStart(chunk, k) * e, L.SegmentLength(chunk, k) * e,
                               deadline);
    return last_send;
  };
  auto recv_segment = [&](char* dst, int chunk, size_t k) {
    pending[k] = links.PostRecv(dst, L.SegmentLength(chunk, k) * e, deadline);
  };
  // All-gather step s receives chunk r-s, which reduce-scatter step s sent
  // (from the input, in place the same memory, at s = 0). The data that
  // arrives cannot exist before that send has been read in full by the
  // next rank, so this wait returns at once; it makes the order local
  // (and visible to ThreadSanitizer, which cannot see it through the
  // sockets) instead of resting on the ring's causality.
  auto gather_into = [&](int step, size_t k) -> absl::Status {
    EB_RETURN_IF_ERROR(
        links.WaitSend(scattered[static_cast<size_t>(step) * segments + k], deadline));
    const int chunk = Mod(r - step, n);
    recv_segment(out + L.SegmentStart(chunk, k) * e, chunk, k);
    return absl::OkStatus();
  };

  // Reduce-scatter. Messages are posted in (step, segment) order on both
  // links, the order in which the neighbours post theirs.
  for (size_t k = 0; k < segments; ++k) {
    recv_segment(temp + k * L.segment * e, Mod(r - 1, n), k);
  }
  for (size_t k = 0; k < segments; ++k) scattered[k] = send_segment(in, r, k);
  for (int step = 0; step < n - 1; ++step) {
    const int chunk = Mod(r - step - 1, n);
    for (size_t k = 0; k < segments; ++k) {
      EB_RETURN_IF_ERROR(links.WaitRecv(pending[k], deadline));
      char* slot = temp + k * L.segment * e;
      const size_t at = L.SegmentStart(chunk, k) * e;
      reduce(out + at, in + at, slot, L.SegmentLength(chunk, k));
      // The reduced segment goes on at once: to the next reduce-scatter
      // step, or, fully reduced after the last, to the all-gather.
      const uint64_t sent = send_segment(out, chunk, k);
      if (step < n - 2) {
        scattered[static_cast<size_t>(step + 1) * segments + k] = sent;
        recv_segment(slot, Mod(r - step - 2, n), k);
      } else {
        EB_RETURN_IF_ERROR(gather_into(0, k));
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
        EB_RETURN_IF_ERROR(gather_into(step + 1, k));
      }
    }
  }
  return links.WaitSend(last_send, deadline);
}

}  // namespace eb::transport
