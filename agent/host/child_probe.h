#pragma once

// Runs a short-lived child (the agent's probes: the workers' NCCL version,
// NVML's GPU details) and returns what it printed, so that whatever the
// probe loads (NCCL, NVML and the CUDA driver under it) never stays in the
// long-lived agent.

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/process/process_launcher.h"

namespace eb::agent {

// Spawns `spec` through `launcher` (the process's reaper stays the only
// one) with stdout and stderr captured in memory, waits up to `timeout` for
// it to exit, and returns its output. DEADLINE_EXCEEDED when it did not
// exit in time (it is killed); UNAVAILABLE when it exited non-zero or was
// killed (the message quotes the end of its output); the spawn's own error
// when it cannot be started; INTERNAL when no in-memory file can be made.
// Blocks the caller up to `timeout` plus one second.
absl::StatusOr<std::string> RunChildProbe(common::ProcessLauncher& launcher,
                                          common::ProcessSpec spec, absl::Duration timeout);

// This process's own executable (/proc/self/exe), "" when it cannot be
// read: the agent's own probe, and the eb-worker beside it.
std::string SelfExecutable();

}  // namespace eb::agent
