#include "common/systemd/watchdog_pinger.h"

#include <pthread.h>
#include <unistd.h>

#include <cstdlib>

#include <utility>

#include "common/systemd/notify_protocol.h"
#include "spdlog/spdlog.h"

namespace eb::common {

absl::StatusOr<absl::Duration> SystemdWatchdogTimeout() {
  return ParseWatchdogTimeout(std::getenv("WATCHDOG_USEC"), std::getenv("WATCHDOG_PID"), getpid());
}

WatchdogPinger::WatchdogPinger(SystemdNotifier& notifier, Executor& executor,
                               absl::Duration timeout, HealthCheck health, Clock& clock)
    : notifier_(notifier),
      executor_(executor),
      clock_(clock),
      period_(timeout > absl::ZeroDuration() ? timeout / 2 : absl::ZeroDuration()),
      state_(std::make_shared<ProbeState>()) {
  state_->health = std::move(health);
}

WatchdogPinger::~WatchdogPinger() { Stop(); }

void WatchdogPinger::Start() {
  if (!enabled()) return;
  absl::MutexLock lock(&thread_mu_);
  if (stop_requested_ || thread_.joinable()) return;
  thread_ = std::thread([this] { Run(); });
  pthread_setname_np(thread_.native_handle(), "eb-watchdog");
}

void WatchdogPinger::Stop() {
  std::thread thread;
  {
    absl::MutexLock lock(&thread_mu_);
    stop_requested_ = true;
    thread = std::move(thread_);
  }
  if (thread.joinable()) thread.join();
  // Waits for a health check that is running right now (it must not
  // block), then forbids further ones: probes still queued on the executor
  // find `stopped` and return without touching the daemon's state.
  absl::MutexLock health_lock(&state_->health_mu);
  absl::MutexLock lock(&state_->mu);
  state_->stopped = true;
}

void WatchdogPinger::Run() {
  while (true) {
    Tick();
    absl::MutexLock lock(&thread_mu_);
    if (thread_mu_.AwaitWithTimeout(absl::Condition(&stop_requested_), period_)) return;
  }
}

void WatchdogPinger::RunProbe(const std::shared_ptr<ProbeState>& state) {
  absl::MutexLock health_lock(&state->health_mu);
  {
    absl::MutexLock lock(&state->mu);
    if (state->stopped) return;
  }
  // Called without `mu`, so that Tick() never waits for the executor.
  const bool healthy = state->health ? state->health() : true;
  absl::MutexLock lock(&state->mu);
  state->outstanding = false;
  state->answered = true;
  state->healthy = healthy;
}

bool WatchdogPinger::Tick() {
  bool ping = false;
  bool post = false;
  {
    const absl::Time now = clock_.Now();
    absl::MutexLock lock(&state_->mu);
    if (state_->stopped) return false;
    ping = state_->answered && state_->healthy;
    // Rate-limited to one line per watchdog timeout (two rounds).
    const bool may_warn = now - state_->last_warning >= 2 * period_;
    if (ping) {
      if (state_->withheld > 0) {
        spdlog::info(
            "watchdog: the event loop is healthy again after {} withheld pings; "
            "pinging systemd again",
            state_->withheld);
      }
      state_->withheld = 0;
    } else if (state_->answered) {
      ++state_->withheld;
      if (may_warn) {
        state_->last_warning = now;
        spdlog::warn(
            "watchdog: the health check failed; withholding WATCHDOG=1 (systemd restarts "
            "the service if this lasts {} ms)",
            absl::ToInt64Milliseconds(2 * period_));
      }
    } else if (state_->outstanding) {
      ++state_->withheld;
      if (may_warn) {
        state_->last_warning = now;
        spdlog::warn(
            "watchdog: the event loop has not run a probe posted {} ms ago; withholding "
            "WATCHDOG=1 (systemd restarts the service if this lasts {} ms)",
            absl::ToInt64Milliseconds(now - state_->posted_at),
            absl::ToInt64Milliseconds(2 * period_));
      }
    }
    state_->answered = false;
    // One probe at a time: a wedged executor must not collect a pile of
    // them that would all "answer" at once when it recovers.
    if (!state_->outstanding) {
      state_->outstanding = true;
      state_->posted_at = now;
      post = true;
    }
  }
  // Outside the lock: an executor may run the callback inline.
  if (post) executor_.Post([state = state_] { RunProbe(state); });
  if (!ping) return false;
  if (absl::Status status = notifier_.NotifyWatchdog(); !status.ok()) {
    spdlog::warn("watchdog: {}", status.ToString());
    return false;
  }
  ++pings_sent_;
  return true;
}

}  // namespace eb::common
