// How many times slower than a plain build this test's code runs:
// EB_TEST_SLOWDOWN=N (tests/sanitize/run.sh sets 3 under ASan+UBSan, 5 under
// TSan), 1 without it, at most 20. A test scales by it only the time it
// leaves for scheduling and for its own peers' work (a rank's pattern fill
// and check between two calls), never a limit of the product that it is
// checking: those stay as configured.
#pragma once

#include <stdlib.h>

#include <algorithm>

#include "absl/strings/numbers.h"

namespace eb::testing {

inline int TestSlowdown() {
  const char* value = ::getenv("EB_TEST_SLOWDOWN");
  int factor = 1;
  if (value == nullptr || !absl::SimpleAtoi(value, &factor) || factor < 1) return 1;
  return std::min(factor, 20);
}

}  // namespace eb::testing
