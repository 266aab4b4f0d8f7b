#include "common/systemd/systemd_notifier.h"

#include <string.h>
#include <systemd/sd-daemon.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace eb::common {

std::string SanitizeStatus(absl::string_view status) {
  std::string line(status);
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return line;
}

bool SystemdNotifier::enabled() const {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  return socket != nullptr && socket[0] != '\0';
}

absl::Status SystemdNotifier::Send(const std::string& state) {
  // unset_environment = 0: the variable must survive for later pings.
  const int result = sd_notify(0, state.c_str());
  if (result >= 0) return absl::OkStatus();  // > 0 sent, 0 no manager
  const char* socket = std::getenv("NOTIFY_SOCKET");
  return absl::UnavailableError(absl::StrCat("sd_notify(\"", SanitizeStatus(state), "\") to '",
                                             socket != nullptr ? socket : "",
                                             "' failed: ", strerrordesc_np(-result)));
}

absl::Status SystemdNotifier::NotifyReady(absl::string_view status) {
  if (ready_sent_.exchange(true)) return NotifyStatus(status);
  return Send(absl::StrCat("READY=1\nSTATUS=", SanitizeStatus(status)));
}

absl::Status SystemdNotifier::NotifyStatus(absl::string_view status) {
  return Send(absl::StrCat("STATUS=", SanitizeStatus(status)));
}

absl::Status SystemdNotifier::NotifyStopping(absl::string_view status) {
  return Send(absl::StrCat("STOPPING=1\nSTATUS=", SanitizeStatus(status)));
}

absl::Status SystemdNotifier::NotifyWatchdog() { return Send("WATCHDOG=1"); }

}  // namespace eb::common
