#include "common/logging/logging.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/debugging/failure_signal_handler.h"
#include "spdlog/pattern_formatter.h"
#include "spdlog/sinks/basic_file_sink.h"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"

namespace eb::common {
namespace {

constexpr char kPattern[] = "[%Y-%m-%d %H:%M:%S.%e %L %P %t] %v";

// The log file again, opened at start-up for the failure writer (-1: none).
// spdlog's own file handle sits behind its mutex and stdio buffer.
int failure_log_fd = -1;

void WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}

// Runs inside the failure signal handler, on a crash (SIGSEGV, SIGABRT...):
// only async-signal-safe calls (write(2) on descriptors opened at start-up).
// Never spdlog: the crashed thread may hold its mutex, and a second lock
// deadlocks until the handler's alarm aborts the process. Lines still in
// spdlog's buffers are lost; warnings and errors are flushed as written.
void WriteFailure(const char* data) {
  if (data == nullptr) return;  // "flush": write(2) has nothing buffered
  const size_t size = std::strlen(data);
  WriteAll(STDERR_FILENO, data, size);
  if (failure_log_fd >= 0) WriteAll(failure_log_fd, data, size);
}

// %* : the syslog priority of the message in angle brackets (sd-daemon.h's
// SD_ERR and friends).
class SyslogPriorityFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& message, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    const char* prefix = "<6>";
    switch (message.level) {
      case spdlog::level::trace:
      case spdlog::level::debug:
        prefix = "<7>";
        break;
      case spdlog::level::info:
        prefix = "<6>";
        break;
      case spdlog::level::warn:
        prefix = "<4>";
        break;
      case spdlog::level::err:
        prefix = "<3>";
        break;
      case spdlog::level::critical:
        prefix = "<2>";
        break;
      default:
        break;
    }
    dest.append(prefix, prefix + 3);
  }
  std::unique_ptr<spdlog::custom_flag_formatter> clone() const override {
    return std::make_unique<SyslogPriorityFlag>();
  }
};

}  // namespace

bool StderrIsJournal() {
  const char* stream = std::getenv("JOURNAL_STREAM");
  if (stream == nullptr) return false;
  unsigned long long device = 0;
  unsigned long long inode = 0;
  if (std::sscanf(stream, "%llu:%llu", &device, &inode) != 2) return false;
  struct stat st {};
  if (fstat(STDERR_FILENO, &st) != 0) return false;
  // A child that inherited the variable but writes elsewhere must not
  // prefix its lines.
  return st.st_dev == device && st.st_ino == inode;
}

std::unique_ptr<spdlog::formatter> MakeLogFormatter(bool syslog_priority_prefix) {
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  if (!syslog_priority_prefix) {
    formatter->set_pattern(kPattern);
    return formatter;
  }
  formatter->add_flag<SyslogPriorityFlag>('*').set_pattern(std::string("%*") + kPattern);
  return formatter;
}

absl::Status InitLogging(const LoggingOptions& options) {
  const spdlog::level::level_enum level = spdlog::level::from_str(options.level);
  // from_str maps unknown names to "off"; only "off" itself may mean off.
  if (level == spdlog::level::off && options.level != "off") {
    return absl::InvalidArgumentError("log level: unknown level '" + options.level +
                                      "' (use trace, debug, info, warn, error, critical, off)");
  }
  std::vector<spdlog::sink_ptr> sinks;
  sinks.push_back(std::make_shared<spdlog::sinks::stderr_sink_mt>());
  sinks.back()->set_formatter(MakeLogFormatter(options.syslog_priority_prefix));
  if (!options.file.empty()) {
    try {
      sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(options.file));
    } catch (const spdlog::spdlog_ex& e) {
      return absl::InvalidArgumentError("log file: cannot open '" + options.file +
                                        "': " + e.what());
    }
    sinks.back()->set_formatter(MakeLogFormatter(false));
  }
  auto logger = std::make_shared<spdlog::logger>(options.component, sinks.begin(), sinks.end());
  logger->set_level(level);
  // Every line is flushed as it is written (a daemon writes few). Not
  // spdlog::flush_every: its thread woke an idle daemon every second
  // (issue 15), and a crash could lose the last second of the file.
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);

  if (!options.file.empty() && failure_log_fd < 0) {
    failure_log_fd = open(options.file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  }
  absl::FailureSignalHandlerOptions handler_options;
  handler_options.writerfn = WriteFailure;
  absl::InstallFailureSignalHandler(handler_options);
  // Abseil's handler also takes SIGTERM, which is a request to stop, not a
  // crash: give it back its default action. Daemons block it and read it
  // from a signalfd (common/process/signals.h).
  signal(SIGTERM, SIG_DFL);
  return absl::OkStatus();
}

}  // namespace eb::common
