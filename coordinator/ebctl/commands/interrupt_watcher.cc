#include "coordinator/ebctl/commands/interrupt_watcher.h"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>

namespace eb::ebctl {

InterruptWatcher::InterruptWatcher(grpc::ClientContext& context, std::string consequence)
    : consequence_(std::move(consequence)) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  signal_fd_ = signalfd(-1, &set, SFD_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_CLOEXEC);
  if (signal_fd_ < 0 || wake_fd_ < 0) {
    // Without them Ctrl-C would go unnoticed (main blocks it): say so.
    std::fprintf(stderr, "ebctl: cannot watch for Ctrl-C (%s); it will have no effect\n",
                 std::strerror(errno));
    return;
  }
  thread_ = std::thread([this, &context] {
    pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    while (true) {
      if (poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents != 0) return;
      if (fds[0].revents != 0) {
        signalfd_siginfo info;
        if (read(signal_fd_, &info, sizeof(info)) != static_cast<ssize_t>(sizeof(info))) continue;
        if (!interrupted_.exchange(true)) {
          std::fprintf(stderr, "\nebctl: interrupted; %s\n", consequence_.c_str());
        }
        context.TryCancel();
      }
    }
  });
}

InterruptWatcher::~InterruptWatcher() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof(one));
    thread_.join();
  }
  if (signal_fd_ >= 0) close(signal_fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

}  // namespace eb::ebctl
