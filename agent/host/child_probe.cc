#include "agent/host/child_probe.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"

namespace eb::agent {
namespace {

// How long a killed probe gets to be reaped before we stop waiting for it.
constexpr absl::Duration kReapGrace = absl::Seconds(1);
// The end of a failed probe's output quoted in the error.
constexpr size_t kQuotedOutputBytes = 400;

std::string ReadAll(int fd) {
  std::string text;
  char buffer[4096];
  off_t offset = 0;
  while (true) {
    const ssize_t n = pread(fd, buffer, sizeof(buffer), offset);
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
    offset += n;
  }
  return text;
}

std::string Tail(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  if (text.size() > kQuotedOutputBytes) text = text.substr(text.size() - kQuotedOutputBytes);
  return text.empty() ? std::string("no output") : absl::StrCat("output: ", text);
}

// Filled on the launcher's reaper thread, read by the caller after Notify.
struct ProbeExit {
  absl::Notification done;
  common::ExitInfo info;
};

}  // namespace

absl::StatusOr<std::string> RunChildProbe(common::ProcessLauncher& launcher,
                                          common::ProcessSpec spec, absl::Duration timeout) {
  // The child's output goes to an anonymous in-memory file: no temporary
  // file to name, clean up or leave behind. The launcher hands the
  // descriptor itself to the child (its /proc/self/fd path is a symbolic
  // link, which the launcher refuses for log files).
  const int output = memfd_create("eb-probe", MFD_CLOEXEC);
  if (output < 0) {
    return absl::InternalError(absl::StrCat("memfd_create: ", strerror(errno)));
  }
  absl::Cleanup close_output = [output] { close(output); };
  spec.log_path.clear();
  spec.log_fd = output;
  auto exited = std::make_shared<ProbeExit>();
  absl::StatusOr<common::ChildHandle> child =
      launcher.Spawn(spec, [exited](const common::ExitInfo& info) {
        exited->info = info;
        exited->done.Notify();
      });
  if (!child.ok()) return child.status();
  const std::string command = absl::StrJoin(spec.argv, " ");
  if (!exited->done.WaitForNotificationWithTimeout(timeout)) {
    (void)launcher.SignalGroup(*child, SIGKILL);
    // Reaped shortly after, by the launcher; `exited` outlives us if not.
    (void)exited->done.WaitForNotificationWithTimeout(kReapGrace);
    return absl::DeadlineExceededError(
        absl::StrCat(command, " did not exit within ", absl::FormatDuration(timeout), "; killed"));
  }
  std::string text = ReadAll(output);
  if (exited->info.exit_code != 0) {
    return absl::UnavailableError(
        absl::StrCat(command, ": ", exited->info.Describe(), "; ", Tail(text)));
  }
  return text;
}

std::string SelfExecutable() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string() : self.string();
}

}  // namespace eb::agent
