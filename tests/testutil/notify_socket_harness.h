#pragma once

// Plays systemd's side of the notification protocol (sd_notify(3)) in tests:
// a Unix datagram socket in a fresh temporary directory whose path goes into
// NOTIFY_SOCKET (of this process for in-process tests, or of a daemon the
// test spawns). Messages are received with the sender's pid (SO_PASSCRED, as
// systemd does for NotifyAccess=main) and a timeout, never by sleeping.
//
//   auto harness = NotifySocketHarness::Create();
//   setenv("NOTIFY_SOCKET", (*harness)->path().c_str(), 1);   // or Environment()
//   ... start the daemon ...
//   auto ready = (*harness)->WaitFor("READY=1", absl::Seconds(10));
//   EXPECT_THAT((*harness)->CountWithin("WATCHDOG=1", absl::Seconds(1)), Ge(2));
//
// Not thread-safe: use from the test's thread.

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace eb::testing {

struct NotifyMessage {
  // The datagram as sent: newline-separated KEY=VALUE assignments.
  std::string text;
  // Sender's pid from SCM_CREDENTIALS (0 when the kernel sent none).
  pid_t pid = 0;
  // True when one of the message's lines is exactly `assignment`.
  bool Has(absl::string_view assignment) const;
  // Value of KEY in the message, or "" when absent.
  std::string Value(absl::string_view key) const;
};

class NotifySocketHarness {
 public:
  // Creates the socket in a fresh mkdtemp directory under TMPDIR (or /tmp).
  // INTERNAL when a system call fails.
  static absl::StatusOr<std::unique_ptr<NotifySocketHarness>> Create();
  // Closes the socket and removes the directory.
  ~NotifySocketHarness();

  NotifySocketHarness(const NotifySocketHarness&) = delete;
  NotifySocketHarness& operator=(const NotifySocketHarness&) = delete;

  // Absolute path of the socket: the value for NOTIFY_SOCKET.
  const std::string& path() const { return path_; }

  // Environment entries for a child that should talk to this harness:
  // NOTIFY_SOCKET, plus WATCHDOG_USEC when `watchdog` is positive
  // (WATCHDOG_PID is left out: sd_watchdog_enabled accepts its absence).
  std::vector<std::string> Environment(absl::Duration watchdog = absl::ZeroDuration()) const;

  // Next datagram, waiting up to `timeout`. DEADLINE_EXCEEDED when none came.
  absl::StatusOr<NotifyMessage> Receive(absl::Duration timeout);
  // Receives until a message with the line `assignment` (e.g. "READY=1")
  // arrives and returns it; every message received, that one included, is
  // appended to history(). DEADLINE_EXCEEDED when it did not come in time.
  absl::StatusOr<NotifyMessage> WaitFor(absl::string_view assignment, absl::Duration timeout);
  // Receives for the whole `window` and counts messages with `assignment`.
  int CountWithin(absl::string_view assignment, absl::Duration window);
  // Discards what is queued now (without waiting).
  int Drain();

  // Every message received by WaitFor/CountWithin/Receive, in order.
  const std::vector<NotifyMessage>& history() const { return history_; }

 private:
  NotifySocketHarness(int fd, std::string dir, std::string path);

  int fd_;
  std::string dir_;
  std::string path_;
  std::vector<NotifyMessage> history_;
};

}  // namespace eb::testing
