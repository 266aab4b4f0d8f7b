#pragma once

// Workers must not outlive the agent (STYLE.md rule 14). A worker calls
// DieWithParent first thing in main, with the agent pid it was given on its
// command line (--agent_pid).

#include <sys/types.h>

#include "absl/status/status.h"

namespace eb::common {

// Asks the kernel to send `signal` to this process when its parent dies
// (prctl(PR_SET_PDEATHSIG)), then checks that the parent is still
// `expected_parent`: if it died before the prctl, the signal will never
// come and getppid() already names a subreaper or init.
//
// Returns FAILED_PRECONDITION ("parent already gone") in that case, and the
// caller must exit. INVALID_ARGUMENT for a bad signal number or
// expected_parent <= 0; INTERNAL when the kernel refuses.
//
// Caveat: the signal fires when the parent *thread* that spawned us exits,
// not only the parent process, so the parent must spawn from a thread that
// lives as long as it does. Cleared by exec of a set-uid binary. Call it
// from the main thread before starting others.
absl::Status DieWithParent(pid_t expected_parent, int signal);

}  // namespace eb::common
