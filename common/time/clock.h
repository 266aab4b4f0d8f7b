#pragma once

// Time behind an interface (STYLE.md rule 12): production code takes a
// Clock&, tests pass a FakeClock and advance it instead of sleeping.

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace eb::common {

class Clock {
 public:
  virtual ~Clock() = default;
  // Current time. Thread-safe.
  virtual absl::Time Now() const = 0;
};

// The wall clock (absl::Now()).
class RealClock final : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }
  // Process-wide instance.
  static RealClock& Get() {
    static RealClock clock;
    return clock;
  }
};

}  // namespace eb::common
