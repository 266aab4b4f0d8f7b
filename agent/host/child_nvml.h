#pragma once

// GPU details from NVML, asked in a child process: `eb-agent
// --print-gpu-details` (agent/core/gpu_details_text.h says why not in the
// daemon itself: NVML loads the CUDA driver, which stays).

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "agent/core/nvml.h"
#include "common/process/process_launcher.h"

namespace eb::agent {

// The flag that makes eb-agent print NVML's report and exit (main.cc).
inline constexpr char kPrintGpuDetailsFlag[] = "--print-gpu-details";
// How long the child may take: NVML's first call on a host with many GPUs
// takes a second or two; a wedged driver must not hold registration.
inline constexpr absl::Duration kGpuDetailsTimeout = absl::Seconds(10);

// Prints SystemNvml()'s report as gpu_details_text.h's text to stdout;
// returns the process's exit code (0). For main().
int PrintGpuDetails();

class ChildProcessNvml final : public GpuDetailsSource {
 public:
  // Runs `agent_binary --print-gpu-details` through `launcher` (which must
  // outlive this object) with `env`.
  ChildProcessNvml(common::ProcessLauncher& launcher, std::string agent_binary,
                   std::vector<std::string> env, absl::Duration timeout = kGpuDetailsTimeout);

  // UNAVAILABLE when the child could not query NVML (its message), could
  // not run, or printed something else than the report; DEADLINE_EXCEEDED
  // when it did not finish in time. Any thread.
  absl::StatusOr<NvmlReport> Query() override;

 private:
  common::ProcessLauncher& launcher_;
  const std::string agent_binary_;
  const std::vector<std::string> env_;
  const absl::Duration timeout_;
};

}  // namespace eb::agent
