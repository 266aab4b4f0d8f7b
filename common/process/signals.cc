#include "common/process/signals.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace eb::common {
namespace {

sigset_t ShutdownSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  return set;
}

// A signalfd for the shutdown set; aborts when the kernel refuses one (out
// of fds at start-up: nothing sensible is left to do).
int OpenShutdownSignalFd() {
  sigset_t set = ShutdownSet();
  const int fd = signalfd(-1, &set, SFD_CLOEXEC);
  if (fd < 0) {
    std::perror("signalfd");
    std::abort();
  }
  return fd;
}

// Reads one signal from `fd`; 0 when nothing could be read.
int ReadSignal(int fd) {
  signalfd_siginfo info{};
  ssize_t n = 0;
  do {
    n = read(fd, &info, sizeof(info));
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof(info)) ? static_cast<int>(info.ssi_signo) : 0;
}

}  // namespace

void BlockShutdownSignals() {
  sigset_t set = ShutdownSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

int WaitForShutdownSignal() {
  const int fd = OpenShutdownSignalFd();
  int signal_number = 0;
  while (signal_number == 0) signal_number = ReadSignal(fd);
  close(fd);
  return signal_number;
}

ShutdownSignalWatcher::ShutdownSignalWatcher(std::function<void(int)> on_signal)
    : on_signal_(std::move(on_signal)),
      signal_fd_(OpenShutdownSignalFd()),
      wake_fd_(eventfd(0, EFD_CLOEXEC)) {
  if (wake_fd_ < 0) {
    std::perror("eventfd");
    std::abort();
  }
  thread_ = std::thread([this] { Run(); });
}

ShutdownSignalWatcher::~ShutdownSignalWatcher() {
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));
  thread_.join();
  close(signal_fd_);
  close(wake_fd_);
}

void ShutdownSignalWatcher::Run() {
  while (true) {
    pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if (fds[0].revents != 0) {
      if (const int signal_number = ReadSignal(signal_fd_); signal_number != 0) {
        on_signal_(signal_number);
      }
    }
  }
}

StartupStopGuard::StartupStopGuard(std::string program)
    : program_(std::move(program)), watcher_([this](int signal_number) {
        // One write(2), not stdio: the main thread may hold stderr's lock.
        char line[512];
        const int n = std::snprintf(
            line, sizeof(line), "%s: received SIG%s while %s; stopping before start-up completed\n",
            program_.c_str(), sigabbrev_np(signal_number), phase_.load());
        if (n > 0) (void)!write(STDERR_FILENO, line, std::min<size_t>(n, sizeof(line) - 1));
        std::_Exit(0);
      }) {}

}  // namespace eb::common
