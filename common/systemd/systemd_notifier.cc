#include "common/systemd/systemd_notifier.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "common/spec/terminal_text.h"
#include "common/systemd/notify_protocol.h"

namespace eb::common {

namespace {

// STATUS= text must be one line: a newline would start a new assignment
// (`systemctl status` shows it, so it is the one sanitizer's one-line form).
constexpr size_t kMaxStatusBytes = 1024;

std::string StatusLine(absl::string_view status) { return spec::OneLine(status, kMaxStatusBytes); }

}  // namespace

bool SystemdNotifier::enabled() const {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  return socket != nullptr && socket[0] != '\0';
}

absl::Status SystemdNotifier::Send(const std::string& state) {
  // Read on each call, and left set: later notifications need it.
  const char* socket = std::getenv("NOTIFY_SOCKET");
  if (socket == nullptr || socket[0] == '\0') return absl::OkStatus();  // no service manager
  const absl::Status sent = SendNotification(socket, state);
  if (sent.ok()) return sent;
  return absl::UnavailableError(
      absl::StrCat("sd_notify(\"", StatusLine(state), "\"): ", sent.message()));
}

absl::Status SystemdNotifier::NotifyReady(absl::string_view status) {
  if (ready_sent_.exchange(true)) return NotifyStatus(status);
  return Send(absl::StrCat("READY=1\nSTATUS=", StatusLine(status)));
}

absl::Status SystemdNotifier::NotifyStatus(absl::string_view status) {
  return Send(absl::StrCat("STATUS=", StatusLine(status)));
}

absl::Status SystemdNotifier::NotifyStopping(absl::string_view status) {
  return Send(absl::StrCat("STOPPING=1\nSTATUS=", StatusLine(status)));
}

absl::Status SystemdNotifier::NotifyWatchdog() { return Send("WATCHDOG=1"); }

}  // namespace eb::common
