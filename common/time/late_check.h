#pragma once

// The one rule for every timer that judges silence (a node's heartbeats, a
// worker's, a test's progress, a session's registration, an answer): a
// check that runs late does not judge the silence of its own stall.
//
// A timer runs late when its process was not running: the event loop busy,
// the process descheduled or stopped (a loaded CI machine, a frozen agent
// resumed). What the peers sent meanwhile may still be queued in sockets
// and gRPC's threads behind the timer; judged at once, every peer looks
// silent for as long as the stall lasted. CI under load declared two
// healthy agents lost in the same millisecond that way (issue 33 item 19).
//
// So a check that runs more than `tolerance` after it was due judges
// nothing and runs again `settle` later, with what arrived. Never twice in
// a row: a loop late at every check still judges, every other time, so a
// dead peer is found at most one `settle` later. Pure; one per timer, on
// the timer's executor.

#include <optional>

#include "absl/time/time.h"

namespace eb::common {

class LateCheck {
 public:
  // A one-shot deadline (a phase, a registration, a wait): a second late
  // still judges; later than that, the deadline waits a second for what the
  // stall held back.
  static LateCheck ForDeadline() { return LateCheck(absl::Seconds(1), absl::Seconds(1)); }
  // A check repeated every `period`: one period late is the tolerance, and
  // the deferred check runs a period later, when it would have anyway.
  static LateCheck ForPeriod(absl::Duration period) { return LateCheck(period, period); }

  LateCheck(absl::Duration tolerance, absl::Duration settle)
      : tolerance_(tolerance), settle_(settle) {}

  // The check is armed to run at `due`: a new deadline, or the next period
  // after a check that judged.
  void Arm(absl::Time due) {
    due_ = due;
    deferred_ = false;
  }

  // The check runs at `now`. Returns nothing when it may judge; otherwise
  // the delay after which to run it again, judging nothing now. The caller
  // posts that run without Arm (this check already expects it).
  std::optional<absl::Duration> Defer(absl::Time now) {
    if (now - due_ <= tolerance_ || deferred_) {
      deferred_ = false;
      return std::nullopt;
    }
    deferred_ = true;
    due_ = now + settle_;
    return settle_;
  }

  // How late a check running at `now` is.
  absl::Duration Lateness(absl::Time now) const { return now - due_; }

 private:
  absl::Duration tolerance_;
  absl::Duration settle_;
  absl::Time due_ = absl::InfiniteFuture();  // not armed: never late
  bool deferred_ = false;
};

}  // namespace eb::common
