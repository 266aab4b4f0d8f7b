#include "tests/bench/load_generator/scheduler.h"

#include <utility>

#include "absl/time/clock.h"

namespace eb::bench {

Scheduler::Scheduler() : thread_([this] { Loop(); }) {}

void Scheduler::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    due_.clear();
  }
  if (thread_.joinable()) thread_.join();
}

void Scheduler::PostAfter(absl::Duration delay, std::function<void()> fn) {
  absl::MutexLock lock(&mu_);
  if (stopping_) return;
  due_.emplace(absl::Now() + delay, std::move(fn));
  posted_ = true;
}

void Scheduler::Loop() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    if (due_.empty() || due_.begin()->first > absl::Now()) {
      const absl::Time wake = due_.empty() ? absl::InfiniteFuture() : due_.begin()->first;
      posted_ = false;
      mu_.AwaitWithDeadline(absl::Condition(
                                +[](Scheduler* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
                                  return self->stopping_ || self->posted_;
                                },
                                this),
                            wake);
      continue;
    }
    std::function<void()> fn = std::move(due_.begin()->second);
    due_.erase(due_.begin());
    mu_.Unlock();
    fn();
    mu_.Lock();
  }
}

}  // namespace eb::bench
