#pragma once

// Rank times that cannot all be true (issue 32 item 3, SECURITY_FINDINGS
// P2-4d): a node that slowed its clock (or lies in its reports) made its
// ranks' times 10x too short, and with `-a 0` that one rank turned a
// FAILED --min-busbw test into PASSED.
//
// The physical invariant is a rank's finish, not its time. Every rank
// measures from the barrier before the timed batch on its own clock: its
// mean arrival at the calls (RankTiming.arrival_us) and its time per call.
// A collective cannot complete on one rank before its peers have done
// their part, so no rank finishes the batch much before the others:
//   - a blocking backend (Gloo, ring links) issues call k+1 when call k
//     completed, at about the same instant on every rank: arrival + time
//     is the same on every rank up to jitter, however late one started
//     (a late rank's longer arrival and shorter time cancel);
//   - an asynchronous backend (NCCL) issues all calls at once: arrival is
//     the rank's start, time runs from its start to the common end, and a
//     late start raises arrival + time, never lowers it.
// So a rank whose arrival + time is below half the other ranks' median,
// by more than any start skew (kMinImpossibleGapUs), while its time too is
// below half theirs, reports a finish that did not happen: a clock or a
// report that lies. A rank whose time alone is short (it arrived late) is
// consistent and is not flagged: that was the check tried first and
// withdrawn (docs/SECURITY.md). The time condition keeps an honest early
// starter of an asynchronous backend out: its finish is the lowest when
// most ranks start late, but its time is the longest.
//
// Only collectives whose every rank's result needs every rank's input
// (all_reduce, all_gather, reduce_scatter, alltoall) bind the ranks' ends
// so: in a rooted or point-to-point call a sender may finish as soon as
// its data is in a socket buffer (a Gloo reduce's non-root ranks, 20 calls
// of 200 KB, finish before the root has read them), so those rows are not
// judged.
// What it cannot see: a liar that forges arrival and time consistently
// with the others (then it reports the truth about the batch's end), and
// measurements without arrivals (workers of an older version).
// Pure.

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "coordinator/core/collective_tests/run_results.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

// A finish below this share of the other ranks' median is impossible...
inline constexpr double kImpossibleFinishShare = 0.5;
// ...when it is also this much earlier, microseconds per call: more than
// the skew with which ranks leave a barrier on a loaded host (100s of us)
// and more than a late start moves an asynchronous rank's finish.
inline constexpr double kMinImpossibleGapUs = 1000.0;
// A rank is reported when its finish was impossible in at least this many
// measurements (a variant of a size; every measurement when fewer): a
// validation grades one size, whose two variants a lying clock both shows.
inline constexpr int kMinImpossibleMeasurements = 2;

// One rank whose finishes cannot be true.
struct ImpossibleFinish {
  int rank = -1;
  int measurements = 0;  // where its finish was impossible
  int of = 0;            // measurements with every rank's arrival
  // The first such measurement, for the message.
  int64_t size_bytes = 0;
  bool in_place = false;
  double finish_us = 0;         // its arrival + time per call
  double others_median_us = 0;  // the other ranks' median of the same
};

// Whether every rank's result of `collective` needs every rank's input.
bool EveryRankWaitsForEveryRank(ebnccl::v1::Collective collective);

// The ranks of the report's main table whose finishes were impossible, in
// rank order. A measurement counts when its collective binds every rank
// (EveryRankWaitsForEveryRank) and it has one time and one arrival per
// rank, at least two ranks (with two, the other rank's figure is the
// median).
std::vector<ImpossibleFinish> FindImpossibleFinishes(const ebnccl::v1::TestReport& report);

// The run check (run_verdict.h): INCONSISTENT_TIMING for each rank of
// FindImpossibleFinishes, naming the measurement and both figures.
void JudgeRankTimes(absl::Span<const RankResults> ranks, ebnccl::v1::TestReport& report);

}  // namespace eb::coordinator
