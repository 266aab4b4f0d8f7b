#pragma once

// The NCCL library the workers load, learnt from a worker itself: the agent
// runs `eb-worker --print-nccl-version` with the workers' environment
// (BuildNcclProbeSpec; the spawn is agent/host/nccl_probe.h), because
// eb-worker finds libnccl.so.2 through its own RUNPATH and LD_LIBRARY_PATH,
// which may name another library than the agent's default search path
// would. This is the reading of what the probe printed. Pure.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace eb::agent {

// The output of `eb-worker --print-nccl-version`, whose last line is
// "2.28.9" (a version, returned as is) or "none" (built without NCCL,
// returned as ""), blanks around it ignored. INTERNAL quoting the output
// otherwise.
absl::StatusOr<std::string> ParseNcclVersionOutput(absl::string_view output);

}  // namespace eb::agent
