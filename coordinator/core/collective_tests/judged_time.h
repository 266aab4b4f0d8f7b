#pragma once

// The time every check judges (P2-4d, issue 32 item 3). A row's shown time
// follows nccl-tests -a (rank 0's, the average, the fastest, the slowest),
// and so takes the word of whichever ranks it averages or picks: a node
// whose workers report times 10x too short (a compromised node, or one
// whose clock runs slow) turned a FAILED --min-busbw test into PASSED.
//
// A node is the unit of trust: its ranks report through one agent. In a
// blocking collective every rank finishes each call at about the same
// instant, so no node's honest ranks measure much less than another's at
// the sizes that move data. The judged time is therefore the larger of the
// shown time and the slowest node's median rank time: the ranks of one
// node, whatever they report, cannot make a row faster than every other
// node saw it; they can only make it slower, which blames themselves.
// Honest ranks differ by where each one left the barrier before the timed
// calls (a rank descheduled there starts its own clock late), so the
// judged time lies between the average and the slowest rank's time and is
// within a few percent of the shown time where data moves (docs/
// VALIDATION.md, "What a node's ranks cannot change"). Pure.

#include <vector>

#include "absl/types/span.h"

namespace eb::coordinator {

// Per node, the median of its ranks' times (the mean of the middle two for
// an even count). `node_of[i]` is entry i's node, 0-based and dense;
// nodes without entries get 0. Both spans have one entry per rank.
std::vector<double> NodeMedianTimes(absl::Span<const double> times_us,
                                    absl::Span<const int> node_of);

// max(shown_time_us, the largest of NodeMedianTimes).
double JudgedTimeUs(double shown_time_us, absl::Span<const double> times_us,
                    absl::Span<const int> node_of);

}  // namespace eb::coordinator
