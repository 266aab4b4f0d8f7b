#pragma once

// systemd's software watchdog (WatchdogSec=) for a daemon whose state lives
// on one executor (STYLE.md rule 11). A pinger thread sends WATCHDOG=1 every
// half timeout, but only when the daemon proved alive since the last ping:
// each round it posts a probe onto the executor, and pings only if the
// previous probe ran there and the optional health check (evaluated inside
// the probe, on the executor) said yes. A wedged executor (a deadlocked or
// endlessly busy event loop) never runs the probe, the pings stop, and
// systemd kills and restarts the service after WatchdogSec. A thread that
// merely pings on a timer would keep a wedged daemon "alive" forever.
//
//   probe posted ──▶ probe runs on the executor (health() → healthy?) ──▶
//   next round: answered && healthy → WATCHDOG=1; post the next probe
//   next round: not answered        → no ping, no second probe (no pile-up)

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/exec/executor.h"
#include "common/systemd/systemd_notifier.h"
#include "common/time/clock.h"

namespace eb::common {

// The watchdog timeout the service manager expects pings within, read with
// sd_watchdog_enabled(3) from WATCHDOG_USEC (and WATCHDOG_PID, which must be
// this process when set). Zero when the unit has no WatchdogSec= or the
// variables are meant for another process. INVALID_ARGUMENT when the
// variables are malformed. Call from main (it reads the environment).
absl::StatusOr<absl::Duration> SystemdWatchdogTimeout();

class WatchdogPinger {
 public:
  // Extra liveness condition, called on the probed executor inside the
  // probe; return false to withhold pings (e.g. "the registry's liveness
  // sweep ran in the last minute"). Must not block. May be null.
  using HealthCheck = std::function<bool()>;

  // `timeout` is the unit's WatchdogSec (SystemdWatchdogTimeout()); pings go
  // out every timeout / 2. A zero timeout disables the pinger (Start does
  // nothing). `notifier` must outlive the pinger; `executor` must outlive
  // it too, but may drop posted callbacks after it stopped. The clock only
  // measures how long the executor has been silent, for the log.
  WatchdogPinger(SystemdNotifier& notifier, Executor& executor, absl::Duration timeout,
                 HealthCheck health = nullptr, Clock& clock = RealClock::Get());
  // Stop().
  ~WatchdogPinger();

  WatchdogPinger(const WatchdogPinger&) = delete;
  WatchdogPinger& operator=(const WatchdogPinger&) = delete;

  // Starts the pinger thread, which runs Tick() now and then every
  // period(). No-op when disabled or already started. Call from any thread.
  void Start();

  // Stops and joins the thread. Idempotent. Never waits for the executor:
  // safe while the executor is wedged. Once it returns, no ping is sent and
  // the health check is not called again (a probe still queued on the
  // executor becomes a no-op).
  void Stop();

  // One round (what the thread does every period()): pings when the probe
  // posted last round has run and was healthy, then posts a new probe
  // unless one is still outstanding. Returns true when it pinged.
  // Thread-safe. Public so that unit tests can drive rounds deterministically
  // with a ManualExecutor instead of starting the thread.
  bool Tick();

  // Interval between rounds: timeout / 2 (zero when disabled).
  absl::Duration period() const { return period_; }
  bool enabled() const { return period_ > absl::ZeroDuration(); }
  // WATCHDOG=1 pings sent so far.
  int64_t pings_sent() const { return pings_sent_.load(); }

 private:
  // Shared with the probes queued on the executor, which may run after the
  // pinger is gone.
  struct ProbeState {
    absl::Mutex mu;
    bool stopped ABSL_GUARDED_BY(mu) = false;
    // A probe is queued on the executor and has not run yet.
    bool outstanding ABSL_GUARDED_BY(mu) = false;
    // A probe ran since the last round, and what its health check said.
    bool answered ABSL_GUARDED_BY(mu) = false;
    bool healthy ABSL_GUARDED_BY(mu) = false;
    // When the outstanding probe was posted, and when a round last logged
    // that it withholds the ping (the warning is rate-limited).
    absl::Time posted_at ABSL_GUARDED_BY(mu);
    absl::Time last_warning ABSL_GUARDED_BY(mu) = absl::InfinitePast();
    // Rounds in a row that withheld the ping (to log the recovery).
    int64_t withheld ABSL_GUARDED_BY(mu) = 0;
    // Held while the health check runs, so that Stop() can wait for a
    // running check to end and then forbid further ones. Acquired before mu.
    absl::Mutex health_mu;
    HealthCheck health;
  };

  static void RunProbe(const std::shared_ptr<ProbeState>& state);
  void Run();

  SystemdNotifier& notifier_;
  Executor& executor_;
  Clock& clock_;
  const absl::Duration period_;
  const std::shared_ptr<ProbeState> state_;
  std::atomic<int64_t> pings_sent_{0};

  absl::Mutex thread_mu_;
  bool stop_requested_ ABSL_GUARDED_BY(thread_mu_) = false;
  std::thread thread_ ABSL_GUARDED_BY(thread_mu_);
};

}  // namespace eb::common
