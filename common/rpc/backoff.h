#pragma once

// Exponential backoff with jitter for reconnecting to a peer (the agent to
// its coordinator). Pure apart from the random source, which is injectable.

#include <algorithm>
#include <functional>

#include "absl/time/time.h"

namespace eb::common {

class Backoff {
 public:
  struct Options {
    absl::Duration initial = absl::Milliseconds(100);
    absl::Duration max = absl::Seconds(5);
    double multiplier = 2.0;
    // Each delay is scaled by a factor drawn from [1 - jitter, 1 + jitter].
    double jitter = 0.2;
  };
  // `uniform01` returns a number in [0, 1); tests pass a constant.
  Backoff(Options options, std::function<double()> uniform01)
      : options_(options), uniform01_(std::move(uniform01)), next_(options.initial) {}

  // The delay before the next attempt; grows until `max`.
  absl::Duration Next() {
    const absl::Duration base = next_;
    next_ = std::min(options_.max, next_ * options_.multiplier);
    const double factor = 1.0 + options_.jitter * (2.0 * uniform01_() - 1.0);
    return base * factor;
  }
  // After a success: start again from `initial`.
  void Reset() { next_ = options_.initial; }

 private:
  Options options_;
  std::function<double()> uniform01_;
  absl::Duration next_;
};

}  // namespace eb::common
