#pragma once

// The daemon's side of systemd's notification protocol (sd_notify(3)) for
// Type=notify units: READY=1 once the daemon really serves, STATUS= lines
// shown by `systemctl status`, STOPPING=1 when it begins to shut down, and
// WATCHDOG=1 keep-alive pings (see WatchdogPinger).
//
// Outside systemd (NOTIFY_SOCKET unset) every call is a no-op that returns
// OK, so the daemons run unchanged from a shell or a test.
//
// The protocol is defined through the environment (NOTIFY_SOCKET), which is
// read on each call (notify_protocol.h speaks it): this is the one place besides the workers'
// NCCL/CUDA variables where a library depends on the environment (STYLE.md
// rule 21), because that is systemd's contract. The variable is left set
// (later calls need it); the agent's workers never see it, since the agent
// passes them an explicit environment.

#include <atomic>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace eb::common {

class SystemdNotifier {
 public:
  SystemdNotifier() = default;
  SystemdNotifier(const SystemdNotifier&) = delete;
  SystemdNotifier& operator=(const SystemdNotifier&) = delete;

  // True when a service manager listens (NOTIFY_SOCKET is set). Thread-safe.
  bool enabled() const;

  // Tells the service manager that start-up is complete: READY=1 together
  // with STATUS=`status`. Only the first call sends READY=1; later calls
  // (e.g. the agent registering again after a reconnect) only update
  // STATUS. Thread-safe, non-blocking in practice (one datagram to PID 1).
  // OK when sent or when not running under systemd; UNAVAILABLE when the
  // notification socket cannot be reached (the message says why).
  absl::Status NotifyReady(absl::string_view status);

  // STATUS=`status` (a free-form line for `systemctl status`). Same
  // contract as NotifyReady.
  absl::Status NotifyStatus(absl::string_view status);

  // STOPPING=1 with STATUS=`status`: shutdown has begun, so that systemd
  // does not count the time until exit as a hang. Same contract.
  absl::Status NotifyStopping(absl::string_view status);

  // WATCHDOG=1: one keep-alive ping. Same contract. Callers normally use
  // WatchdogPinger rather than pinging by hand.
  absl::Status NotifyWatchdog();

  // True once READY=1 was sent (or attempted outside systemd).
  bool ready_sent() const { return ready_sent_.load(); }

 private:
  // Sends newline-separated assignments in one datagram.
  absl::Status Send(const std::string& state);

  std::atomic<bool> ready_sent_{false};
};

}  // namespace eb::common
