// The CPU time the calling thread has used: what a test bounds when it
// asserts that some work is cheap. Wall time is not that: on a loaded
// machine (CI's two cores with a build beside the tests) a few milliseconds
// of work can take most of a second to be scheduled (issue 33 item 19).
#pragma once

#include <time.h>

#include "absl/time/time.h"

namespace eb::testing {

inline absl::Duration ThreadCpuTime() {
  timespec now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return absl::DurationFromTimespec(now);
}

}  // namespace eb::testing
