#pragma once

// Which rank was slow most often over a whole test. nccl-tests prints no
// per-rank time at all (NCCL_FACTS.md 2.2); one summary, computed once when
// the coordinator finalizes a report and stored in it (TestReport.
// slowest_rank), is what a fleet operator needs to pick the node to drain,
// without a straggler line per size. Pure: no I/O, no clock; callable from
// any thread.

#include <optional>

#include "ebnccl/v1/control.pb.h"

namespace eb::validation {

// Below this mean excess (the slowest rank's time over the rank average, in
// percent, over the measurements where it was slowest) no rank is a
// straggler: healthy runs spread 0.1-0.3%, and naming a rank for that is
// noise (issue 16).
inline constexpr double kMinStragglerExcessPct = 5.0;

// The rank that was slowest in the most measurements (ties: the lower rank),
// with its node and slot from the report's rank map (local_rank -1 when the
// map lacks the rank), or nullopt when nothing qualifies: fewer than two
// ranks, no results, equal times everywhere, or that rank's mean excess
// below kMinStragglerExcessPct. A measurement is one variant
// (out-of-place, in-place) of one size; it counts when it has at least two
// ranks, a slowest rank >= 0, and max time > min time.
std::optional<ebnccl::v1::SlowestRank> FindSlowestRank(const ebnccl::v1::TestReport& report);

// ---- Attribution by arrival (docs/DESIGN.md, "Straggler attribution") ----
//
// In a collective every rank waits for the last one to arrive, so the ranks'
// times are equal and say nothing about who was late; when each rank
// entered the timed calls does. Every worker reports, per measurement, its
// mean arrival at the timed calls measured from the barrier before them
// (RankTiming.arrival_us; the barrier's release is the instant all ranks
// share), and the coordinator's aggregator keeps them per rank
// (VariantResult.rank_arrival_us).
//
// In one measurement the latest rank's lag is its arrival minus the median
// arrival of the other ranks. It counts as late only above the noise:
// kMinArrivalLagUs (host timers, scheduling, the barrier's release skew)
// and kMinArrivalLagShare of the call time (the skew with which a healthy
// collective's ranks leave one call and reach the next).
inline constexpr double kMinArrivalLagUs = 100.0;
inline constexpr double kMinArrivalLagShare = 0.25;

// A strict majority is not enough in small groups: with two ranks one of
// them is late in 6 of 10 measurements by chance alone 75 % of the time
// (CI once named a healthy member of a two-member rail that way). The
// straggler's count must also be one that chance reaches at most this
// often (ChanceOfLateCount).
inline constexpr double kMaxStragglerChance = 0.01;

// How often chance alone makes some one of `ranks` ranks the late one in at
// least `count` of `measurements` measurements: each measurement's late rank
// drawn at random, every rank with probability 1/ranks (the binomial tail),
// summed over the ranks (a union bound, so it can overstate, never
// understate). 1 when count <= 0; needs ranks >= 2.
double ChanceOfLateCount(int count, int measurements, int ranks);

struct Attribution {
  // The straggler, when one rank was late in a strict majority of the
  // measurements with arrivals, a count chance reaches at most
  // kMaxStragglerChance of the time (basis "arrival"); without arrivals,
  // what FindSlowestRank says (basis "time").
  std::optional<ebnccl::v1::SlowestRank> slowest;
  // Set when at least one measurement had arrivals from every rank; `flat`
  // there means that no rank was named: a slow result is the path.
  std::optional<ebnccl::v1::ArrivalSummary> arrivals;
};

// The arrival analysis over `rows` whose per-rank arrays have `ranks`
// entries (>= 2; rows with another count are skipped). `slowest.rank` is an
// index into those arrays, node and local rank unset; `arrivals` unset when
// no row had arrivals.
Attribution AttributeByArrival(
    const google::protobuf::RepeatedPtrField<ebnccl::v1::SizeResult>& rows, int ranks);

// Attribution over the main table's rows (not the rails'). Measurements
// count when rank_arrival_us has one entry per rank (>= 2 ranks). When no
// measurement has arrivals (workers of an older version), falls back to
// FindSlowestRank.
Attribution AttributeStraggler(const ebnccl::v1::TestReport& report);

}  // namespace eb::validation
