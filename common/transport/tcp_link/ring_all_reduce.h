#pragma once

// Ring all_reduce on RingLinks: reduce-scatter then all-gather, each chunk
// cut into segments so that the reduction of one segment (on the caller's
// thread) overlaps the transfer of the next (on the links' sender and
// receiver threads), and so that a segment goes on to the next rank as
// soon as it is reduced. Bandwidth-optimal like NCCL's ring: every rank
// sends and receives 2(n-1)/n of the buffer.
//
// Rank r, n ranks, the buffer cut into n chunks (element boundaries; the
// first count % n chunks one element longer). Reduce-scatter step s
// (0..n-2): send chunk r-s (the input at s = 0, then what was reduced the
// step before) to r+1; receive chunk r-s-1 from r-1 into scratch and
// reduce it with this rank's input into the output. After n-1 steps chunk
// r+1 is reduced over all ranks. All-gather step s: send chunk r+1-s, and
// receive chunk r-s straight into the output.
//
// In place is safe without a copy: the input chunk r is read only by the
// first step's send, and written only by the all-gather's first receive,
// which is posted only once that send is done; every other chunk is read
// by the reduction of a segment before its result is written there, and
// the all-gather receives into a chunk only after its reduce-scatter send
// from there is done.

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "common/transport/tcp_link/ring_links.h"

namespace eb::transport {

// out[i] = a[i] op b[i] for `count` elements; `out` may alias `a` or `b`.
using RingReduceFn = void (*)(void* out, const void* a, const void* b, size_t count);

// Segment size of the pipeline: smaller segments start the overlap of the
// reduction with the transfer sooner, larger ones cost fewer messages and
// thread wake-ups. 2-rank all_reduce busbw at 64-256 MiB on the shared
// 2-core machine (docs/BENCHMARKS.md §10, round 3): 1 MiB 0.9-1.2 GB/s over
// a veth pair and 1.1-2.0 over loopback, 4 MiB 1.2-1.4 / 1.3-1.6, 8 MiB
// 1.5-1.9 / 2.1-2.7, 16 MiB 1.3-1.6 / 1.8-2.5.
inline constexpr size_t kRingSegmentBytes = size_t{8} << 20;

// Scratch bytes RingAllReduce needs for `count` elements of `element_bytes`
// on `world_size` ranks (one chunk, rounded up to whole segments of
// `segment_bytes`).
size_t RingAllReduceScratchBytes(size_t count, size_t element_bytes, int world_size,
                                 size_t segment_bytes = kRingSegmentBytes);

// All-reduces `count` elements of `element_bytes` from `send` into `recv`
// with `reduce`, over `links` (its rank and world size). `send` == `recv`
// (in place) is allowed; a partial overlap is not (the caller stages it).
// `scratch` holds RingAllReduceScratchBytes (same `segment_bytes`, which
// tests make small to cut many segments out of a small buffer). Errors as
// RingLinks::Shift.
absl::Status RingAllReduce(RingLinks& links, const void* send, void* recv, size_t count,
                           size_t element_bytes, RingReduceFn reduce, void* scratch,
                           LinkClock::time_point deadline,
                           size_t segment_bytes = kRingSegmentBytes);

}  // namespace eb::transport
