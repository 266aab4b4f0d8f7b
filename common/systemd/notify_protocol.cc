#include "common/systemd/notify_protocol.h"

#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace eb::common {

absl::Status SendNotification(absl::string_view address, absl::string_view state) {
  sockaddr_un socket_address{};
  socket_address.sun_family = AF_UNIX;
  if (address.empty() || (address[0] != '/' && address[0] != '@')) {
    return absl::InvalidArgumentError(absl::StrCat(
        "NOTIFY_SOCKET '", address, "' is neither a path nor an abstract name (@...)"));
  }
  if (address.size() > sizeof(socket_address.sun_path)) {
    return absl::InvalidArgumentError(
        absl::StrCat("NOTIFY_SOCKET '", address, "' is longer than a socket address may be"));
  }
  address.copy(socket_address.sun_path, address.size());
  // An abstract name starts with a NUL byte and is not NUL-terminated.
  if (address[0] == '@') socket_address.sun_path[0] = '\0';
  const socklen_t length = static_cast<socklen_t>(
      offsetof(sockaddr_un, sun_path) + address.size() +
      (address[0] == '/' && address.size() < sizeof(socket_address.sun_path) ? 1 : 0));
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot make a socket to notify '", address, "': ", strerrordesc_np(errno)));
  }
  ssize_t sent = 0;
  do {
    sent = sendto(fd, state.data(), state.size(), MSG_NOSIGNAL,
                  reinterpret_cast<const sockaddr*>(&socket_address), length);
  } while (sent < 0 && errno == EINTR);
  const int error = errno;
  close(fd);
  if (sent < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot notify '", address, "': ", strerrordesc_np(error)));
  }
  return absl::OkStatus();
}

absl::StatusOr<absl::Duration> ParseWatchdogTimeout(const char* watchdog_usec,
                                                    const char* watchdog_pid, pid_t self) {
  if (watchdog_usec == nullptr) return absl::ZeroDuration();
  uint64_t usec = 0;
  // systemd's own bound: a timeout is finite (USEC_INFINITY is all ones).
  if (!absl::SimpleAtoi(watchdog_usec, &usec) || usec == 0 ||
      usec >= std::numeric_limits<uint64_t>::max() ||
      usec > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return absl::InvalidArgumentError(
        absl::StrCat("WATCHDOG_USEC '", watchdog_usec, "' is not a positive number of µs"));
  }
  if (watchdog_pid != nullptr) {
    int64_t pid = 0;
    if (!absl::SimpleAtoi(watchdog_pid, &pid) || pid <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("WATCHDOG_PID '", watchdog_pid, "' is not a process id"));
    }
    if (pid != self) return absl::ZeroDuration();  // meant for another process
  }
  return absl::Microseconds(static_cast<int64_t>(usec));
}

}  // namespace eb::common
