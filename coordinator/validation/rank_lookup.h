#pragma once

// What the culprit signals (culprit.h, gpu_throttle.h) share about a
// report's ranks: where a rank was placed, and the share every rank had
// alike. Pure.

#include <vector>

#include "ebnccl/v1/control.pb.h"

namespace eb::validation {

// The assignment of global rank `rank` in report.ranks(); null when the
// map has none.
const ebnccl::v1::RankAssignment* FindRank(const ebnccl::v1::TestReport& report, int rank);

// The lower median of `shares` (0 when empty): what a part stopped, starved
// or throttled alone (a rank, or the ranks of one node when fewer than
// half) does not move, so a share is judged above it.
double CommonShare(std::vector<double> shares);

}  // namespace eb::validation
