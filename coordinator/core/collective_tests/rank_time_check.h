#pragma once

// Rank times that cannot all be true (SECURITY_FINDINGS P2-4d): the ranks
// of one collective call finish together (none can complete before every
// rank contributed), so over a size's iterations their average times agree
// within arrival skew. A node that slows its own clock reported 211 µs
// against the others' 2,104 µs for the same call and, as rank 0 with -a 0,
// turned a FAILED --min-busbw test into PASSED. Such a row is a finding
// that fails the test, naming the rank whose time stands apart. Pure.

#include "absl/types/span.h"
#include "coordinator/core/collective_tests/run_results.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

// A rank's time this many times below or above the median of its row's
// rank times is not a measurement.
inline constexpr double kMaxRankTimeRatio = 10.0;
// ... when it is also this far from the median: at latency-bound sizes a
// few microseconds of jitter can make any ratio.
inline constexpr double kMinRankTimeGapUs = 100.0;

// A check of kRunChecks (run_verdict.h): WRONG_DATA (the results cannot be
// trusted; the wire has no kind of its own for it yet) for each rank whose
// time of some row and variant is kMaxRankTimeRatio from the row's median,
// once per rank, naming the size and both times.
void JudgeRankTimes(absl::Span<const RankResults> ranks, ebnccl::v1::TestReport& report);

}  // namespace eb::coordinator
