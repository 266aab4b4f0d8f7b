#include "coordinator/scheduler_io/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"

namespace eb::scheduler_io {
namespace {

// How long a killed command gets to be reaped before we stop waiting.
constexpr absl::Duration kReapGrace = absl::Seconds(1);

// Filled on the launcher's reaper thread, read by the caller after Notify.
struct CommandExit {
  absl::Notification done;
  common::ExitInfo info;
};

}  // namespace

LauncherCommandRunner::LauncherCommandRunner(common::ProcessLauncher& launcher,
                                             size_t max_output_bytes)
    : launcher_(launcher), max_output_bytes_(max_output_bytes) {}

absl::StatusOr<CommandResult> LauncherCommandRunner::Run(const std::vector<std::string>& argv,
                                                         const std::vector<std::string>& env,
                                                         absl::Duration timeout) {
  if (argv.empty()) return absl::InvalidArgumentError("command: empty argv");
  const std::string command = absl::StrJoin(argv, " ");
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat(command, ": pipe: ", strerror(errno)));
  }
  absl::Cleanup close_read = [fd = fds[0]] { close(fd); };
  common::ProcessSpec spec;
  spec.executable = argv[0];
  spec.argv = argv;
  spec.env = env;
  spec.log_fd = fds[1];
  auto exited = std::make_shared<CommandExit>();
  absl::StatusOr<common::ChildHandle> child =
      launcher_.Spawn(spec, [exited](const common::ExitInfo& info) {
        exited->info = info;
        exited->done.Notify();
      });
  close(fds[1]);  // the child has its copy: EOF comes when it (and its children) end
  if (!child.ok()) return child.status();
  auto kill_child = [&] {
    (void)launcher_.SignalGroup(*child, SIGKILL);
    (void)exited->done.WaitForNotificationWithTimeout(kReapGrace);
  };
  const absl::Time deadline = absl::Now() + timeout;
  CommandResult result;
  char buffer[8192];
  while (true) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      kill_child();
      return absl::DeadlineExceededError(
          absl::StrCat(command, " did not end within ", absl::FormatDuration(timeout), "; killed"));
    }
    pollfd readable{fds[0], POLLIN, 0};
    const int ready = poll(&readable, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) {
      kill_child();
      return absl::InternalError(absl::StrCat(command, ": poll: ", strerror(errno)));
    }
    if (ready == 0) continue;
    const ssize_t n = read(fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF (or an error: the exit says the rest)
    if (result.output.size() + static_cast<size_t>(n) > max_output_bytes_) {
      kill_child();
      return absl::ResourceExhaustedError(absl::StrCat(
          command, " printed more than ", max_output_bytes_, " bytes; killed, output refused"));
    }
    result.output.append(buffer, static_cast<size_t>(n));
  }
  if (!exited->done.WaitForNotificationWithTimeout(std::max(deadline - absl::Now(), kReapGrace))) {
    kill_child();
    return absl::DeadlineExceededError(absl::StrCat(command,
                                                    " closed its output but did not exit within ",
                                                    absl::FormatDuration(timeout), "; killed"));
  }
  result.exit_code = exited->info.exit_code;
  return result;
}

}  // namespace eb::scheduler_io
