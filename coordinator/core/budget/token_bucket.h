#pragma once

// A token bucket: `rate` tokens a second, at most `burst` held. Pure (the
// caller passes the time), so tests drive it with a FakeClock and never
// sleep; not thread-safe (one owner at a time).

#include "absl/time/time.h"

namespace eb::coordinator {

class TokenBucket {
 public:
  // Starts full at `now`. `rate` >= 0 tokens a second, `burst` > 0.
  TokenBucket(double rate, double burst, absl::Time now);

  // Takes `cost` tokens at `now` when the bucket holds them; false (and
  // nothing taken) otherwise. A clock that goes back adds nothing (the wall
  // clock may be set back): the bucket never refills from a jump.
  bool Take(double cost, absl::Time now);

  // Tokens held at the last Take.
  double tokens() const { return tokens_; }
  double rate() const { return rate_; }
  double burst() const { return burst_; }

 private:
  double rate_;
  double burst_;
  double tokens_;
  absl::Time last_;
};

}  // namespace eb::coordinator
