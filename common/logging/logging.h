#pragma once

// One logging setup for every binary (STYLE.md rule 5): spdlog, configured
// once in main. Daemons log to stderr (journald under systemd) and, when a
// file is given, to that file too. Log lines about a test carry
// `test=<id> rank=<r> node=<n>` (rule 6).

#include <string>

#include "absl/status/status.h"

namespace eb::common {

struct LoggingOptions {
  // Component name, e.g. "eb-agent"; becomes the logger name.
  std::string component;
  // spdlog level name: trace, debug, info, warn, error, critical, off.
  std::string level = "info";
  // Optional file that receives the same lines as stderr.
  std::string file;
};

// Installs the default logger and the failure-signal handler (which flushes
// the log before the process dies). INVALID_ARGUMENT for an unknown level.
absl::Status InitLogging(const LoggingOptions& options);

}  // namespace eb::common
