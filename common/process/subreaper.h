#pragma once

// Makes this process a child subreaper (STYLE.md rule 13): processes
// orphaned below it (a worker's own children whose parent died) are
// re-parented here instead of to init, so the agent sees and reaps them and
// can account for everything it started. PosixProcessLauncher reaps them.

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace eb::common {

class Subreaper {
 public:
  Subreaper() = delete;

  // prctl(PR_SET_CHILD_SUBREAPER, 1) for the whole process; idempotent.
  // Call once early in main, before spawning. The attribute is never
  // cleared again (the agent needs it for its whole life) and is not
  // inherited by children. INTERNAL (with errno) when the kernel refuses.
  // Thread-safe.
  static absl::Status Enable();

  // Whether this process is a child subreaper (PR_GET_CHILD_SUBREAPER).
  // INTERNAL when the kernel refuses. Thread-safe.
  static absl::StatusOr<bool> IsEnabled();
};

}  // namespace eb::common
