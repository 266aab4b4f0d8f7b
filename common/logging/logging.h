#pragma once

// One logging setup for every binary (STYLE.md rule 5): spdlog, configured
// once in main. Daemons log to stderr (journald under systemd) and, when a
// file is given, to that file too. Log lines about a test carry
// `test=<id> rank=<r> node=<n>` (rule 6).

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "spdlog/formatter.h"

namespace eb::common {

struct LoggingOptions {
  // Component name, e.g. "eb-agent"; becomes the logger name.
  std::string component;
  // spdlog level name: trace, debug, info, warn, error, critical, off.
  std::string level = "info";
  // Optional file that receives the same lines as stderr.
  std::string file;
  // Starts each stderr line with its syslog priority ("<3>" for errors), so
  // that journald files it at that priority (systemd's SyslogLevelPrefix=,
  // on by default) and `journalctl -p err` finds the errors. Set it when
  // StderrIsJournal(); the log file never gets the prefix.
  bool syslog_priority_prefix = false;
};

// True when stderr is connected to the journal (systemd sets JOURNAL_STREAM
// to the device and inode of the stream it gave the service). Reads the
// environment: call from main.
bool StderrIsJournal();

// The line format of every binary, "[%Y-%m-%d %H:%M:%S.%e %L %P %t] %v",
// optionally led by the syslog priority of the message ("<6>" info, "<4>"
// warn, "<3>" error...).
std::unique_ptr<spdlog::formatter> MakeLogFormatter(bool syslog_priority_prefix);

// Installs the default logger and the failure-signal handler for real
// crashes (SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE, SIGTRAP), which writes
// its dump with write(2) only, to stderr and the log file. SIGTERM keeps its
// default action: a stop is not a crash (common/process/signals.h). Call
// once, from main. INVALID_ARGUMENT for an unknown level.
absl::Status InitLogging(const LoggingOptions& options);

}  // namespace eb::common
