#pragma once

#include "absl/synchronization/mutex.h"
#include "common/time/clock.h"

namespace eb::testing {

// A clock that moves only when the test advances it.
class FakeClock final : public common::Clock {
 public:
  explicit FakeClock(absl::Time start = absl::FromUnixSeconds(1'800'000'000)) : now_(start) {}
  absl::Time Now() const override {
    absl::MutexLock lock(&mu_);
    return now_;
  }
  void Advance(absl::Duration d) {
    absl::MutexLock lock(&mu_);
    now_ += d;
  }

 private:
  mutable absl::Mutex mu_;
  absl::Time now_;
};

}  // namespace eb::testing
