#pragma once

// A single-thread Executor: a task queue and a timer heap served by one
// thread. Timers use the injected Clock's notion of time but sleep on a real
// condition variable, so production code uses RealClock with it.

#include <deque>
#include <functional>
#include <map>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/exec/executor.h"
#include "common/time/clock.h"

namespace eb::common {

class EventLoop final : public Executor {
 public:
  // Starts the thread. `name` is used for the thread name (15 chars max).
  explicit EventLoop(const char* name, Clock& clock = RealClock::Get());
  // Stops and joins (see Stop).
  ~EventLoop() override;

  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  void Post(std::function<void()> fn) override;
  TimerId PostAfter(absl::Duration delay, std::function<void()> fn) override;
  void Cancel(TimerId id) override;
  bool IsCurrent() const override;

  // Runs the callbacks already queued, drops pending timers, then joins the
  // thread. Idempotent. Must not be called from the loop's own thread.
  void Stop();

 private:
  void Run();

  Clock& clock_;
  // With the real clock an idle loop sleeps until its next timer or task;
  // with any other clock its waits are capped (see Run).
  const bool real_clock_;
  mutable absl::Mutex mu_;
  std::deque<std::function<void()>> tasks_ ABSL_GUARDED_BY(mu_);
  // Ordered by (deadline, id); the id keeps equal deadlines in post order.
  std::map<std::pair<absl::Time, TimerId>, std::function<void()>> timers_ ABSL_GUARDED_BY(mu_);
  std::map<TimerId, absl::Time> timer_deadlines_ ABSL_GUARDED_BY(mu_);
  TimerId next_timer_id_ ABSL_GUARDED_BY(mu_) = 1;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // When the loop's current wait ends; an earlier new timer wakes it.
  absl::Time wake_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  std::thread thread_;
};

}  // namespace eb::common
