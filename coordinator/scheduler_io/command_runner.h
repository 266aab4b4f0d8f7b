#pragma once

// Runs one short command (a scheduler's CLI tool) to its end and returns
// what it printed: behind an interface so that the backends are unit-tested
// with a fake runner that never spawns, and production spawns through
// common::ProcessLauncher (the process's one reaper).

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/process/process_launcher.h"

namespace eb::scheduler_io {

struct CommandResult {
  int exit_code = -1;  // -1 when killed by a signal
  // stdout and stderr together (the launcher sends both to one descriptor);
  // at most the runner's output limit.
  std::string output;
};

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // Runs `argv` (argv[0] an absolute path, no shell) with `env` ("K=V";
  // nothing inherited). DEADLINE_EXCEEDED when it has not ended within
  // `timeout` (it is killed), RESOURCE_EXHAUSTED when it printed more than
  // the limit (killed too), the launcher's error when it cannot start. A
  // non-zero exit is not an error here: the result says it.
  virtual absl::StatusOr<CommandResult> Run(const std::vector<std::string>& argv,
                                            const std::vector<std::string>& env,
                                            absl::Duration timeout) = 0;
};

// The production runner: the child's output through a pipe read as it
// comes, so that a command that prints without end is stopped at
// `max_output_bytes` rather than filling memory. Blocks the caller up to
// `timeout` plus one second.
class LauncherCommandRunner final : public CommandRunner {
 public:
  // `launcher` must outlive the runner.
  explicit LauncherCommandRunner(common::ProcessLauncher& launcher,
                                 size_t max_output_bytes = 16 << 20);
  absl::StatusOr<CommandResult> Run(const std::vector<std::string>& argv,
                                    const std::vector<std::string>& env,
                                    absl::Duration timeout) override;

 private:
  common::ProcessLauncher& launcher_;
  const size_t max_output_bytes_;
};

}  // namespace eb::scheduler_io
