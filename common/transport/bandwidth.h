#pragma once

// Bandwidth math, copied from nccl-tests so that our numbers mean what
// nccl-tests users already read (STYLE.md rule 20). Formulas: each
// src/<collective>.cu *GetBw() and doc/PERFORMANCE.md
// (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md):
//
//   algbw = S / t, with GB = 1e9 bytes, where S is
//     count * type_size           for all_reduce, broadcast, reduce, sendrecv
//     count * type_size * nranks  for all_gather, reduce_scatter, alltoall
//   (count is the "count" column, i.e. CollectiveLayout::param_count; the
//   second form is CollectiveRow::count_is_chunk);
//   busbw = algbw * factor (CollectiveRow::busbw), where factor is
//     2(n-1)/n  for all_reduce,
//     (n-1)/n   for all_gather, reduce_scatter, alltoall,
//     1         for broadcast, reduce, sendrecv.
//
// busbw "should reflect the speed of the hardware bottleneck" and is
// comparable across rank counts; note that with NVLS/tree algorithms it is
// not wire bandwidth (NCCL_FACTS.md section 2.1). Everything here is pure
// and thread-safe.

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/transport/types.h"

namespace eb::transport {

struct Bandwidth {
  double algbw_gbps = 0;  // GB/s, GB = 1e9 bytes
  double busbw_gbps = 0;
};

// The busbw/algbw factor for `nranks` ranks (see above; the function of
// the collective's CollectiveRow::busbw). 0 for all_reduce,
// all_gather, reduce_scatter and alltoall on one rank, like nccl-tests.
double BusBwFactor(Collective collective, int nranks);

// S in bytes (see above) as a double, like nccl-tests computes it.
double AlgBwBytes(Collective collective, int64_t count, size_t type_size, int nranks);

// algbw and busbw for one operation taking `time_us` microseconds. Both are
// 0 when time_us <= 0 (no meaningful rate; nccl-tests would print inf).
Bandwidth ComputeBandwidth(Collective collective, int64_t count, size_t type_size, int nranks,
                           double time_us);

// Per-size timing across ranks, as nccl-tests aggregates it.
struct RankTimeSummary {
  double avg_time_us = 0;  // the reported time (nccl-tests -a 1, its default)
  double min_time_us = 0;
  double max_time_us = 0;
  int slowest_rank = -1;  // index of max_time_us; the lowest rank on ties
  Bandwidth bandwidth;    // computed from avg_time_us, like nccl-tests
};

// Summarises one time per rank (times_us[r] = rank r's time per operation in
// us; nranks = times_us.size()). INVALID_ARGUMENT when times_us is empty or a
// time is negative or not finite (the message names the rank).
absl::StatusOr<RankTimeSummary> SummarizeRankTimes(Collective collective, int64_t count,
                                                   size_t type_size,
                                                   absl::Span<const double> times_us);

}  // namespace eb::transport
