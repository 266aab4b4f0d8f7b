#pragma once

// `eb-worker --print-nccl-version`: what the agent runs to learn which NCCL
// library its workers load (agent/core/nccl_library.h).

#include <string>

#include "absl/status/statusor.h"

namespace eb::worker {

// "2.28.9" from NCCL's version code: major*10000 + minor*100 + patch since
// 2.9, major*1000 + minor*100 + patch before (nccl.h's NCCL_VERSION).
std::string FormatNcclVersionCode(int code);

// The version of the libnccl this process loaded (ncclGetVersion, which
// returns a constant and initialises no CUDA), or "none" when eb-worker was
// built without NCCL. INTERNAL when NCCL fails to answer.
absl::StatusOr<std::string> LoadedNcclVersion();

}  // namespace eb::worker
