#pragma once

// systemd's notification protocol, spoken directly (sd_notify(3) documents
// it as a stable interface that may be reimplemented): one datagram of
// newline-separated assignments to the AF_UNIX socket named by
// NOTIFY_SOCKET, and the watchdog's WATCHDOG_USEC/WATCHDOG_PID.
//
// Why not libsystemd: linking it loaded seven shared libraries (libsystemd,
// libgcrypt, libgpg-error, liblz4, liblzma, libzstd, libcap) into every
// daemon, about 1 MB of an idle agent's resident memory (issue 15), for
// one sendto(2).

#include <sys/types.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace eb::common {

// Sends `state` in one datagram to `address`: a path ("/run/systemd/notify")
// or an abstract name ("@name"). INVALID_ARGUMENT when the address is of
// another kind or too long for a socket address; UNAVAILABLE when the
// datagram cannot be sent (the message names the address and the reason).
absl::Status SendNotification(absl::string_view address, absl::string_view state);

// The watchdog timeout asked of process `self`, from the values of
// WATCHDOG_USEC and WATCHDOG_PID (nullptr when unset), as
// sd_watchdog_enabled(3) reads them: zero when no watchdog is asked, or it
// is asked of another pid; INVALID_ARGUMENT when a value is malformed.
absl::StatusOr<absl::Duration> ParseWatchdogTimeout(const char* watchdog_usec,
                                                    const char* watchdog_pid, pid_t self);

}  // namespace eb::common
