#pragma once

// The third signal of culprit attribution (docs/RELIABILITY.md, "GPU
// throttling"; issue 29 item 6): a GPU that held itself below its clocks
// (thermal or power limit, HW slowdown, power brake) slows every call of the
// test while its rank arrives on time and runs, so arrivals and schedules
// both read as "the path". Each NCCL rank's worker reads its GPU's NVML
// violation counters around every timed batch (RankTiming.gpu_throttle); a
// rank whose GPU was held back for a share of its timed calls that the
// others' were not is the culprit (CULPRIT_GPU_THROTTLED). Pure: no I/O, no
// clock; any thread.

#include <optional>
#include <string>

#include "coordinator/validation/culprit.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::validation {

// A GPU is throttled when a judged policy (power, thermal, board limit,
// reliability: not sync boost, which is deliberate, nor low utilization,
// which a GPU waiting on the network always is) held it below its clocks
// for at least this share of its timed calls' wall time: 5 % of a
// bandwidth-bound collective is already a slowdown a validation grades.
inline constexpr double kMinGpuThrottledShare = 0.05;
// ... and at least this much in all, microseconds: NVML's counters move in
// coarse steps (RELIABILITY.md), so a few ms over a short test is one step.
inline constexpr double kMinGpuThrottledUs = 5000.0;
// As with schedules (culprit.h, kStalledDominance): shares are compared
// above the common one, the lower median of the ranks' (a site power cap
// holds every GPU alike). The most throttled GPU is named alone when every
// other's share above the common one is under 1/kGpuThrottleDominance of
// its own; nobody is when its own is under kMinGpuThrottledShare above the
// common one (every GPU alike).
inline constexpr double kGpuThrottleDominance = 2.5;

// The GPU throttles over `rows` whose per-rank arrays have `ranks` entries;
// nullopt when no measurement has one (CPU transports, older workers, no
// NVML anywhere).
std::optional<ebnccl::v1::GpuThrottleSummary> SummarizeGpuThrottle(
    const google::protobuf::RepeatedPtrField<ebnccl::v1::SizeResult>& rows, int ranks);

// What the GPUs alone say about `report`'s main table.
struct GpuThrottleVerdict {
  enum Kind {
    kNone,     // no GPU recorded its counters
    kFlat,     // no GPU was throttled above the floor
    kRank,     // one GPU, far above the others: `rank`
    kAlike,    // every GPU throttled alike (a site power cap, the room's cooling)
    kSeveral,  // several GPUs, no one standing out
  } kind = kNone;
  int rank = -1;
  double share = 0;    // kRank: its throttled share of the timed calls
  std::string policy;  // kRank: the judged policy that held it longest
  std::string why;     // one clause with the figures
};
GpuThrottleVerdict JudgeGpuThrottle(const ebnccl::v1::TestReport& report);

// `decided` (arrivals and schedules, DecideFromMeasurements) with the GPUs'
// verdict added:
//  * one GPU throttled: where the others named no part (PATH, UNKNOWN, or
//    UNSPECIFIED: neither arrivals nor schedules nor distinct times) or
//    its rank as late, it is the culprit (GPU_THROTTLED, the old reason
//    kept after it); where they named its rank or its rank's host as
//    descheduled, that finding stands with the GPU's figures added; where
//    they named another part, UNKNOWN naming both;
//  * every GPU alike, or several: no part; a PATH becomes UNKNOWN (a slow
//    result is not surely the path), the clause is added to the reason;
//  * flat or not recorded: unchanged.
// A failure that ended the test is decided after this and overrules it
// (DecideCulprit), as do the hosts' counters only for PATH and UNKNOWN.
CulpritFinding WithGpuThrottle(const ebnccl::v1::TestReport& report, CulpritFinding decided);

}  // namespace eb::validation
