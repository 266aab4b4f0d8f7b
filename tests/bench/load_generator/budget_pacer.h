#pragma once

// A token bucket on the sending side: a compromised agent spends what the
// coordinator's per-node budget allows (coordinator/core/budget/*.h,
// docs/SECURITY.md "Per-node budget") and no more, by waiting for the
// tokens before each message. The coordinator's own bucket starts full, as
// this one does, so a sender that keeps to `share` (< 1) of the coordinator's
// numbers is never cut off: "the worst allowed".

#include <algorithm>
#include <cstdint>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace eb::bench {

class BudgetPacer {
 public:
  BudgetPacer(double per_second, double burst)
      : per_second_(per_second), burst_(burst), tokens_(burst), last_(absl::Now()) {}

  // Takes `cost` tokens when they are there; false (nothing taken) when not.
  bool TryTake(double cost) {
    Refill();
    if (tokens_ < cost) return false;
    tokens_ -= cost;
    return true;
  }

  // Waits until `cost` tokens are there and takes them. A cost above the
  // burst can never be paid: it is taken at a full bucket (the caller's
  // messages are all below the coordinator's burst).
  void Take(double cost) {
    const double needed = std::min(cost, burst_);
    while (true) {
      Refill();
      if (tokens_ >= needed) break;
      absl::SleepFor(absl::Seconds((needed - tokens_) / per_second_));
    }
    tokens_ -= needed;
  }

 private:
  void Refill() {
    const absl::Time now = absl::Now();
    tokens_ = std::min(burst_, tokens_ + absl::ToDoubleSeconds(now - last_) * per_second_);
    last_ = now;
  }

  const double per_second_;
  const double burst_;
  double tokens_;
  absl::Time last_;
};

}  // namespace eb::bench
