#pragma once

// How nccl-tests turns a swept byte size into element counts, buffer regions
// and the printed "size" and "count" columns (src/*.cu GetCollByteCount,
// src/common.cu setupArgs / TimeTest / writeBenchmarkLinePreamble). Keeping
// this bit-for-bit identical makes our table comparable with nccl-tests.
// Everything here is pure and thread-safe.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/transport/types.h"

namespace eb::transport {

// Element counts of one collective call, all per rank.
struct CollectiveLayout {
  // Elements each rank sends (all_gather: its chunk; reduce_scatter and
  // alltoall: nranks chunks; others: the whole buffer).
  int64_t send_count = 0;
  // Elements each rank receives (all_gather and alltoall: nranks chunks;
  // reduce_scatter: one chunk; others: the whole buffer).
  int64_t recv_count = 0;
  // The count passed to the collective and printed in the "count" column.
  int64_t param_count = 0;
  // In-place calls put the send (recv) pointer at rank * offset elements
  // into the receive buffer (all_gather: send at rank*chunk; reduce_scatter:
  // recv at rank*chunk; others 0, i.e. send == recv).
  int64_t send_inplace_offset = 0;
  int64_t recv_inplace_offset = 0;
  // Bytes per element.
  int64_t element_size = 0;

  int64_t send_bytes() const { return send_count * element_size; }
  int64_t recv_bytes() const { return recv_count * element_size; }
  // The "size" column: max(send bytes, recv bytes).
  int64_t printed_size_bytes() const {
    return send_bytes() > recv_bytes() ? send_bytes() : recv_bytes();
  }
};

// The layout for a swept `size_bytes`: count = size_bytes / element_size,
// and for all_gather, reduce_scatter and alltoall the per-rank chunk
// (count / nranks) rounded down to a multiple of 16 bytes' worth of elements
// (`& ~(16/element_size - 1)`), exactly as nccl-tests does. Sizes smaller
// than one element (or one aligned chunk per rank) give a zero count.
// INVALID_ARGUMENT when size_bytes < 0, nranks < 1, or element_size is not
// 1, 2, 4 or 8.
absl::StatusOr<CollectiveLayout> ComputeLayout(Collective collective, int64_t size_bytes,
                                               size_t element_size, int nranks);

// The most sizes one sweep may have; a longer sweep is almost certainly a
// typo (e.g. -i 1 with -e 1G) and would run for days.
inline constexpr int64_t kMaxSweepSizes = 10000;

// The sizes nccl-tests' benchmark loop visits (TimeTest):
//   for (size = min; size <= max; size = factor > 1 ? size*factor : size+step)
// INVALID_ARGUMENT, naming the field, when a value is negative, min_bytes >
// max_bytes, the loop would never end (step_factor <= 1 with step_bytes <= 0;
// min_bytes == 0 with step_factor > 1, where nccl-tests spins forever), or
// the sweep would exceed kMaxSweepSizes sizes. Never overflows int64_t.
absl::StatusOr<std::vector<int64_t>> SweepSizes(int64_t min_bytes, int64_t max_bytes,
                                                int64_t step_factor, int64_t step_bytes);

// Checks a sweep that comes from elsewhere (the coordinator's
// LaunchTest.sizes_bytes, as the agent and the worker receive it): 1 to
// kMaxSweepSizes sizes, each >= 0, non-decreasing, and none above
// `max_bytes` (the buffers are sized for it). INVALID_ARGUMENT naming
// `field` otherwise, e.g. "sizes_bytes: size #2 (512) is smaller than the
// size before it (1024)".
absl::Status CheckSweepSizes(absl::Span<const int64_t> sizes, int64_t max_bytes,
                             absl::string_view field);

// The sizes of nccl-tests' warm-up (TimeTest: every size from min to max,
// doubling). Deviation: a min of 0 is followed by 1 instead of looping
// forever. Expects 0 <= min_bytes <= max_bytes (validate with SweepSizes
// first); returns an empty vector otherwise.
std::vector<int64_t> WarmupSizes(int64_t min_bytes, int64_t max_bytes);

}  // namespace eb::transport
