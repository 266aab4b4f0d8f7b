#pragma once

// The NCCL library the workers load, learnt from a worker itself: the agent
// runs `eb-worker --print-nccl-version` with the workers' environment
// (BuildNcclProbeSpec), because eb-worker finds libnccl.so.2 through its own
// RUNPATH and LD_LIBRARY_PATH, which may name another library than the
// agent's default search path would. ncclGetVersion only returns a
// constant, so the probe initialises no CUDA; it runs in a child anyway,
// which also keeps the agent itself free of NCCL and CUDA.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/process/process_launcher.h"

namespace eb::agent {

// How long the probe may take before it is killed: a broken library or
// loader must not hang the agent's start.
inline constexpr absl::Duration kNcclProbeTimeout = absl::Seconds(5);

// The output of `eb-worker --print-nccl-version`, whose last line is
// "2.28.9" (a version, returned as is) or "none" (built without NCCL,
// returned as ""), blanks around it ignored. INTERNAL quoting the output
// otherwise.
absl::StatusOr<std::string> ParseNcclVersionOutput(absl::string_view output);

// Spawns `spec` through `launcher` (the process's reaper stays the only
// one) with stdout and stderr captured in memory, waits up to `timeout` for
// it to exit, and parses its output. "" when the worker was built without
// NCCL. DEADLINE_EXCEEDED when it did not exit in time (it is killed);
// UNAVAILABLE when it exited non-zero or was killed, e.g. because the
// loader cannot find libnccl.so.2 (the message quotes the end of its
// output); the spawn's own error when it cannot be started; INTERNAL for
// unexpected output. Blocks the caller up to `timeout` plus one second.
absl::StatusOr<std::string> ProbeWorkerNcclVersion(common::ProcessLauncher& launcher,
                                                   common::ProcessSpec spec,
                                                   absl::Duration timeout = kNcclProbeTimeout);

}  // namespace eb::agent
