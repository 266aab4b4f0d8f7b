#pragma once

// Parsing a daemon's command line with CLI11, with one exit code for every
// usage error. CLI11_PARSE exits with CLI11's own codes (105 for a value
// out of range, 106 for a missing one...), which scripts and systemd's
// RestartPreventExitStatus=2 cannot tell from real failures.

#include <optional>

#include "CLI/CLI.hpp"

namespace eb::common {

// Parses argv into `app`. Returns nullopt to go on, or the code main()
// must return: 0 after --help/--version (printed by CLI11), `usage_code`
// after a usage error (CLI11 prints the message to stderr).
inline std::optional<int> ParseCommandLine(CLI::App& app, int argc, char** argv,
                                           int usage_code = 2) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : usage_code;
  }
  return std::nullopt;
}

}  // namespace eb::common
