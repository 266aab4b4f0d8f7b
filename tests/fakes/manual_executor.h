#pragma once

// An Executor that runs nothing until the test says so: RunUntilIdle() runs
// posted callbacks and due timers; AdvanceTime() moves the FakeClock and runs
// what became due. Tests never sleep (STYLE.md rule 12).

#include <deque>
#include <functional>
#include <map>
#include <utility>

#include "common/exec/executor.h"
#include "tests/fakes/fake_clock.h"

namespace eb::testing {

class ManualExecutor final : public common::Executor {
 public:
  explicit ManualExecutor(FakeClock& clock) : clock_(clock) {}

  void Post(std::function<void()> fn) override { tasks_.push_back(std::move(fn)); }
  common::TimerId PostAfter(absl::Duration delay, std::function<void()> fn) override {
    const common::TimerId id = next_id_++;
    timers_.emplace(std::make_pair(clock_.Now() + delay, id), std::move(fn));
    return id;
  }
  void Cancel(common::TimerId id) override {
    for (auto it = timers_.begin(); it != timers_.end(); ++it) {
      if (it->first.second == id) {
        timers_.erase(it);
        return;
      }
    }
  }
  bool IsCurrent() const override { return true; }

  // Runs posted callbacks and due timers until none is left. Returns how
  // many ran.
  int RunUntilIdle() {
    int ran = 0;
    while (true) {
      if (!tasks_.empty()) {
        auto fn = std::move(tasks_.front());
        tasks_.pop_front();
        fn();
        ++ran;
        continue;
      }
      if (!timers_.empty() && timers_.begin()->first.first <= clock_.Now()) {
        auto fn = std::move(timers_.begin()->second);
        timers_.erase(timers_.begin());
        fn();
        ++ran;
        continue;
      }
      return ran;
    }
  }

  // Advances the clock in steps to each due timer up to `d`, running what
  // becomes due on the way (so timers fire in order at their own time).
  void AdvanceTime(absl::Duration d) {
    const absl::Time end = clock_.Now() + d;
    RunUntilIdle();
    while (!timers_.empty() && timers_.begin()->first.first <= end) {
      const absl::Time next = timers_.begin()->first.first;
      if (next > clock_.Now()) clock_.Advance(next - clock_.Now());
      RunUntilIdle();
    }
    if (end > clock_.Now()) clock_.Advance(end - clock_.Now());
    RunUntilIdle();
  }

  size_t pending_timers() const { return timers_.size(); }

 private:
  FakeClock& clock_;
  std::deque<std::function<void()>> tasks_;
  std::map<std::pair<absl::Time, common::TimerId>, std::function<void()>> timers_;
  common::TimerId next_id_ = 1;
};

}  // namespace eb::testing
