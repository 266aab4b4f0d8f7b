#include "tests/testutil/notify_socket_harness.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace eb::testing {

namespace {

absl::Status Errno(const std::string& what) {
  return absl::InternalError(absl::StrCat(what, ": ", strerrordesc_np(errno)));
}

}  // namespace

bool NotifyMessage::Has(absl::string_view assignment) const {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line == assignment) return true;
  }
  return false;
}

std::string NotifyMessage::Value(absl::string_view key) const {
  const std::string prefix = absl::StrCat(key, "=");
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, prefix)) return std::string(line.substr(prefix.size()));
  }
  return "";
}

absl::StatusOr<std::unique_ptr<NotifySocketHarness>> NotifySocketHarness::Create() {
  const char* tmp = getenv("TMPDIR");
  std::string dir =
      absl::StrCat(tmp != nullptr && tmp[0] != '\0' ? tmp : "/tmp", "/eb-notify-XXXXXX");
  if (mkdtemp(dir.data()) == nullptr) return Errno(absl::StrCat("mkdtemp ", dir));
  std::string path = absl::StrCat(dir, "/notify.sock");
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path)) {
    rmdir(dir.c_str());
    return absl::InternalError(absl::StrCat("socket path too long: ", path));
  }
  memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Errno("socket(AF_UNIX, SOCK_DGRAM)");
  std::unique_ptr<NotifySocketHarness> harness(new NotifySocketHarness(fd, dir, path));
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    return Errno(absl::StrCat("bind ", path));
  }
  // Like systemd: ask the kernel for the sender's credentials.
  const int on = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) != 0) {
    return Errno("setsockopt(SO_PASSCRED)");
  }
  return harness;
}

NotifySocketHarness::NotifySocketHarness(int fd, std::string dir, std::string path)
    : fd_(fd), dir_(std::move(dir)), path_(std::move(path)) {}

NotifySocketHarness::~NotifySocketHarness() {
  close(fd_);
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::vector<std::string> NotifySocketHarness::Environment(absl::Duration watchdog) const {
  std::vector<std::string> env = {absl::StrCat("NOTIFY_SOCKET=", path_)};
  if (watchdog > absl::ZeroDuration()) {
    env.push_back(absl::StrCat("WATCHDOG_USEC=", absl::ToInt64Microseconds(watchdog)));
  }
  return env;
}

absl::StatusOr<NotifyMessage> NotifySocketHarness::Receive(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    char buffer[4096];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
    iovec iov{buffer, sizeof(buffer) - 1};
    msghdr header{};
    header.msg_iov = &iov;
    header.msg_iovlen = 1;
    header.msg_control = control;
    header.msg_controllen = sizeof(control);
    const ssize_t received = recvmsg(fd_, &header, MSG_CMSG_CLOEXEC);
    if (received >= 0) {
      NotifyMessage message;
      message.text.assign(buffer, static_cast<size_t>(received));
      for (cmsghdr* c = CMSG_FIRSTHDR(&header); c != nullptr; c = CMSG_NXTHDR(&header, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
          ucred credentials;
          memcpy(&credentials, CMSG_DATA(c), sizeof(credentials));
          message.pid = credentials.pid;
        }
      }
      history_.push_back(message);
      return message;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return Errno("recvmsg");
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      return absl::DeadlineExceededError(
          absl::StrCat("no notification on ", path_, " within ", absl::FormatDuration(timeout)));
    }
    pollfd poll_fd{fd_, POLLIN, 0};
    // Round up so that a sub-millisecond remainder still waits.
    poll(&poll_fd, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
  }
}

absl::StatusOr<NotifyMessage> NotifySocketHarness::WaitFor(absl::string_view assignment,
                                                           absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    absl::StatusOr<NotifyMessage> message = Receive(deadline - absl::Now());
    if (!message.ok()) {
      return absl::Status(message.status().code(), absl::StrCat("waiting for ", assignment, ": ",
                                                                message.status().message()));
    }
    if (message->Has(assignment)) return message;
  }
}

int NotifySocketHarness::CountWithin(absl::string_view assignment, absl::Duration window) {
  const absl::Time end = absl::Now() + window;
  int count = 0;
  while (true) {
    const absl::Duration left = end - absl::Now();
    if (left <= absl::ZeroDuration()) return count;
    absl::StatusOr<NotifyMessage> message = Receive(left);
    if (!message.ok()) return count;
    if (message->Has(assignment)) ++count;
  }
}

int NotifySocketHarness::Drain() {
  int drained = 0;
  while (Receive(absl::ZeroDuration()).ok()) ++drained;
  return drained;
}

}  // namespace eb::testing
