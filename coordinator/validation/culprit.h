#pragma once

// Who a test's slow result is to blame on, from two independent signals
// (docs/RELIABILITY.md, "Descheduled ranks"; issue 29 item 6):
//  * arrivals (straggler.h): a rank that enters the timed calls late made
//    the others wait;
//  * schedules (RankTiming.schedule): a rank whose process did not run for
//    part of the timed calls (SIGSTOPped, starved of CPU) slowed every call
//    while arriving on time, which arrivals cannot see; and, within them,
//    the time its cgroup's CPU limit held it back, which names it surely.
// "The path" is said only when both are flat; a missing or ambiguous signal
// is "cannot tell", never "the path". Pure: no I/O, no clock; any thread.

#include <optional>
#include <string>
#include <vector>

#include "coordinator/validation/straggler.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::validation {

// A rank is stalled when its stalled time over the test's timed calls is at
// least this share of their wall time: a 30 ms-in-100 ms SIGSTOP duty is
// ~30 %, a healthy rank on a quiet host ~0 %; on the 2-core development
// machine at load 12 healthy ranks were starved up to 10.6 %. A stall under
// 15 % explains less than a 15 % slowdown; those are left to the path or to
// "cannot tell".
inline constexpr double kMinStalledShare = 0.15;
// ... and at least this much in all, microseconds: fewer than two of the
// ticker's slack-sized gaps are noise however short the test.
inline constexpr double kMinStalledUs = 8000.0;
// Stalls are compared above the common stall, the lower median of the
// ranks' shares (what a loaded host starves every rank of alike). The most
// stalled rank is named alone when every other rank's stall above it is
// less than 1/kStalledDominance of its own; the ranks within that factor of
// it are named as their host when they share one node, else nobody is.
// Nobody is either when its own is under kMinStalledShare above the common
// one (every rank starved alike). Without the common stall, at load 12-19
// healthy ranks at 10-16 % beside a stopped one at 33-35 % read as "its
// host" or "cannot tell" in 2 of 10 runs (culprit scoring, RELIABILITY.md).
inline constexpr double kStalledDominance = 2.5;
// A rank whose cgroup's CPU limit held it back (RankSchedule.throttled_us)
// at least this share of its timed calls more than the common share, and
// kMinStalledUs in all, is named by it, under the ticker's floor: the
// kernel throttles only a group over its own quota, never for the host's
// load, so a healthy rank reads 0 however busy the host (culprit scoring's
// cpu_quota case: 9-11 % stalled, under the 15 % floor, in 5 of its 40 runs).
inline constexpr double kMinThrottledShare = 0.05;

// The schedules over `rows` whose per-rank arrays have `ranks` entries;
// nullopt when no measurement has a schedule from every rank (workers older
// than RankTiming.schedule).
std::optional<ebnccl::v1::ScheduleSummary> SummarizeSchedule(
    const google::protobuf::RepeatedPtrField<ebnccl::v1::SizeResult>& rows, int ranks);

struct CulpritFinding {
  ebnccl::v1::Culprit culprit = ebnccl::v1::CULPRIT_UNSPECIFIED;
  // LATE_RANK and DESCHEDULED_RANK: the rank, placed on its node and slot
  // (basis "arrival", or "descheduled" when only the schedule named it:
  // mean_excess_pct is then its stalled share, slowest_count the
  // measurements in which it was the most stalled rank; or "cpu_limit"
  // when its cgroup's throttled time named it: mean_excess_pct is then
  // that share).
  std::optional<ebnccl::v1::SlowestRank> rank;
  std::string node;  // DESCHEDULED_HOST, LINK_ERRORS; FAILURE: the failed node or rank's
  std::string part;  // LINK_ERRORS: the port ("mlx5_2 port 1")
  // PATH, LINK_ERRORS and UNKNOWN: the hosts' counters that moved
  // (path_counters.h), worst first.
  std::vector<ebnccl::v1::CounterFinding> counters;
  std::string reason;
  std::optional<ebnccl::v1::ScheduleSummary> schedule;
};

// Both signals over `report`'s main table (rank map in report.ranks()),
// given the arrival analysis of the same table (AttributeStraggler).
// UNSPECIFIED when the report has no measurement with two or more ranks.
// When report.failures(0), ordered by cause, ended the test at a rank or a
// node: FAILURE (node: the failed part's); at the path (no_progress): PATH.
// The rows measured before it did not see it, so they must not contradict
// it (say "the path" of a rank stopped for good, or name a rank starved
// before the path was cut). Then the hosts' counters (path_counters.h):
// a "path" whose ports' link errors grew is LINK_ERRORS, that port; a
// "path" whose nodes retransmitted says which node's traffic was lost; an
// UNKNOWN gets them as a hint, its kind unchanged.
CulpritFinding DecideCulprit(const ebnccl::v1::TestReport& report, const Attribution& arrival);

}  // namespace eb::validation
