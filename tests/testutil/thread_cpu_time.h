// The CPU time the calling thread has used: what a test bounds when it
// asserts that some work is cheap. Wall time is not that: on a loaded
// machine (CI's two cores with a build beside the tests) a few milliseconds
// of work can take most of a second to be scheduled (issue 33 item 19).
//
// An absolute bound on CPU time is still a bound on the build type: the
// same work costs ten times more under ASan at -O0 than at -O2 (CI's
// sanitizer tree, issue 33 item 20, failed a 700 ms bound that way). A test
// that means "this grows linearly, not quadratically" bounds the growth
// instead: CpuCostGrowth compares the work at two sizes on one build, and
// the build's constant factor cancels.
#pragma once

#include <time.h>

#include <algorithm>
#include <functional>

#include "absl/time/time.h"

namespace eb::testing {

inline absl::Duration ThreadCpuTime() {
  timespec now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return absl::DurationFromTimespec(now);
}

// The CPU time `work` takes on this thread.
inline absl::Duration CpuTimeOf(const std::function<void()>& work) {
  const absl::Duration start = ThreadCpuTime();
  work();
  return ThreadCpuTime() - start;
}

// How many times more CPU time `cost(large)` takes than `cost(small)`,
// where `cost(n)` sets up a case of size n and returns what its measured
// part took (CpuTimeOf). Each size runs `repeats` times and its cheapest
// run counts, so one cold allocator or cache does not decide. Sizes far
// apart separate the classes best: with large = 16 * small, linear work
// gives 16 and more (caches), quadratic work 256.
inline double CpuCostGrowth(const std::function<absl::Duration(int n)>& cost, int small, int large,
                            int repeats = 2) {
  absl::Duration best_small = absl::InfiniteDuration();
  absl::Duration best_large = absl::InfiniteDuration();
  for (int i = 0; i < repeats; ++i) {
    best_small = std::min(best_small, cost(small));
    best_large = std::min(best_large, cost(large));
  }
  return absl::FDivDuration(best_large, std::max(best_small, absl::Nanoseconds(1)));
}

}  // namespace eb::testing
