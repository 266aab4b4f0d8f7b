#pragma once

// Runs `eb-worker --print-nccl-version` (agent/core/nccl_library.h says why
// the worker, not the agent, is asked). ncclGetVersion only returns a
// constant, so the probe initialises no CUDA; it runs in a child anyway,
// which also keeps the agent itself free of NCCL and CUDA.

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/core/nccl_library.h"
#include "common/process/process_launcher.h"

namespace eb::agent {

// How long the probe may take before it is killed: a broken library or
// loader must not hang the agent's start.
inline constexpr absl::Duration kNcclProbeTimeout = absl::Seconds(5);

// Spawns `spec` through `launcher` (the process's reaper stays the only
// one) with stdout and stderr captured in memory, waits up to `timeout` for
// it to exit, and parses its output (ParseNcclVersionOutput). "" when the
// worker was built without NCCL. DEADLINE_EXCEEDED when it did not exit in
// time (it is killed); UNAVAILABLE when it exited non-zero or was killed,
// e.g. because the loader cannot find libnccl.so.2 (the message quotes the
// end of its output); the spawn's own error when it cannot be started;
// INTERNAL for unexpected output. Blocks the caller up to `timeout` plus one
// second.
absl::StatusOr<std::string> ProbeWorkerNcclVersion(common::ProcessLauncher& launcher,
                                                   common::ProcessSpec spec,
                                                   absl::Duration timeout = kNcclProbeTimeout);

}  // namespace eb::agent
