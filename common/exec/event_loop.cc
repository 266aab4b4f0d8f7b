#include "common/exec/event_loop.h"

#include <pthread.h>

#include <utility>

namespace eb::common {

EventLoop::EventLoop(const char* name, Clock& clock)
    : clock_(clock), real_clock_(&clock == &RealClock::Get()) {
  thread_ = std::thread([this] { Run(); });
  pthread_setname_np(thread_.native_handle(), name);
}

EventLoop::~EventLoop() { Stop(); }

void EventLoop::Post(std::function<void()> fn) {
  absl::MutexLock lock(&mu_);
  if (stopping_) return;
  tasks_.push_back(std::move(fn));
}

TimerId EventLoop::PostAfter(absl::Duration delay, std::function<void()> fn) {
  absl::MutexLock lock(&mu_);
  const TimerId id = next_timer_id_++;
  if (stopping_) return id;
  const absl::Time deadline = clock_.Now() + delay;
  timers_.emplace(std::make_pair(deadline, id), std::move(fn));
  timer_deadlines_.emplace(id, deadline);
  return id;
}

void EventLoop::Cancel(TimerId id) {
  absl::MutexLock lock(&mu_);
  auto it = timer_deadlines_.find(id);
  if (it == timer_deadlines_.end()) return;
  timers_.erase({it->second, id});
  timer_deadlines_.erase(it);
}

bool EventLoop::IsCurrent() const { return std::this_thread::get_id() == thread_.get_id(); }

void EventLoop::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void EventLoop::Run() {
  while (true) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&mu_);
      // Wake for a task, for stop, or when the earliest timer is due. With a
      // clock that is not absl::Now() the wait is capped so that the loop
      // still makes progress; with the real clock an idle loop sleeps until
      // its next timer (an idle agent woke 10 times a second, issue 15).
      while (true) {
        if (!tasks_.empty()) break;
        if (stopping_) return;
        const absl::Time now = clock_.Now();
        if (!timers_.empty() && timers_.begin()->first.first <= now) break;
        absl::Duration wait = real_clock_ ? absl::InfiniteDuration() : absl::Milliseconds(100);
        if (!timers_.empty()) wait = std::min(wait, timers_.begin()->first.first - now);
        // A timer posted meanwhile that is due before `wake_at_` ends the
        // wait too; the cap keeps a non-wall clock making progress.
        wake_at_ = now + wait;
        mu_.AwaitWithTimeout(absl::Condition(
                                 +[](EventLoop* loop) ABSL_EXCLUSIVE_LOCKS_REQUIRED(loop->mu_) {
                                   return !loop->tasks_.empty() || loop->stopping_ ||
                                          (!loop->timers_.empty() &&
                                           loop->timers_.begin()->first.first < loop->wake_at_);
                                 },
                                 this),
                             wait);
      }
      if (!tasks_.empty()) {
        task = std::move(tasks_.front());
        tasks_.pop_front();
      } else {
        auto it = timers_.begin();
        task = std::move(it->second);
        timer_deadlines_.erase(it->first.second);
        timers_.erase(it);
      }
    }
    task();
  }
}

}  // namespace eb::common
