#pragma once

// All spawning goes through this interface (STYLE.md rule 13), so the
// agent's WorkerSupervisor can be tested with a fake launcher and a fake
// clock, and production uses PosixProcessLauncher (posix_spawn + pidfd).

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace eb::common {

// How to start one child process.
struct ProcessSpec {
  // Absolute path of the executable (no PATH search).
  std::string executable;
  // Full argv, argv[0] included.
  std::vector<std::string> argv;
  // Full environment as "KEY=VALUE"; nothing is inherited implicitly.
  std::vector<std::string> env;
  // File that receives the child's stdout and stderr (created or appended,
  // mode 0600, never through a symbolic link); stdin is /dev/null. Empty:
  // both go to /dev/null.
  std::string log_path;
  // Instead of log_path: an open descriptor the caller owns (and keeps open)
  // for the child's stdout and stderr, e.g. an in-memory file. -1: unused.
  int log_fd = -1;
};

// How a child ended.
struct ExitInfo {
  pid_t pid = 0;
  // Exit status when the child exited normally, else -1.
  int exit_code = -1;
  // Signal that terminated the child, else 0.
  int signal = 0;
  // "exit code 3" or "killed by signal 9 (SIGKILL)".
  std::string Describe() const;
};

// Called exactly once per spawned child, after it has been reaped, on the
// launcher's reaper thread: post to your own executor, never block.
using ExitCallback = std::function<void(const ExitInfo&)>;

// Identifies a spawned child to the launcher. Ids are never reused.
struct ChildHandle {
  uint64_t id = 0;
  pid_t pid = 0;
};

class ProcessLauncher {
 public:
  virtual ~ProcessLauncher() = default;

  // Starts the child in its own process group (pgid = pid) with exactly the
  // given argv and env, every other fd closed. INVALID_ARGUMENT for an empty
  // executable or argv; NOT_FOUND / PERMISSION_DENIED / INTERNAL when the
  // spawn fails (the message names the executable and errno). `on_exit` runs
  // once, after the child is reaped. Thread-safe.
  virtual absl::StatusOr<ChildHandle> Spawn(const ProcessSpec& spec, ExitCallback on_exit) = 0;

  // Sends `signal` to the child's whole process group while the child has
  // not been reaped yet (so the pid cannot have been reused). A no-op
  // returning OK after it was reaped. Thread-safe.
  virtual absl::Status SignalGroup(const ChildHandle& child, int signal) = 0;
};

}  // namespace eb::common
