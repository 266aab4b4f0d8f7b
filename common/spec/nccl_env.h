#pragma once

// Which NCCL variables a test may set for its workers: ONE definition, used
// by the coordinator when it validates a test (`--nccl-env`,
// coordinator/core/spec_validator) and by every agent again when a LaunchTest
// arrives (agent/core/launch_check), because the agent runs as root and must
// not trust what answers at the coordinator's address (a fake coordinator
// got LD_PRELOAD into a worker, SECURITY_FINDINGS case 1). Tuning and
// debugging knobs are allowed; the fabric configuration (HCAs, interfaces,
// GID index, ports) belongs to each agent's configuration, because it
// differs per node and a wrong value silently falls back to slower paths.
// Pure.

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace eb::spec {

// At most this many variables, each value at most this long.
inline constexpr int kMaxNcclEnvEntries = 64;
inline constexpr int kMaxNcclEnvValueLength = 1024;

// The allowed names, sorted.
const std::vector<std::string>& AllowedNcclEnv();

// INVALID_ARGUMENT naming `nccl_env` and the first refused key (with the
// allowed list), an empty/multi-line/overlong value, or too many entries.
absl::Status CheckNcclEnv(const std::map<std::string, std::string>& env);

}  // namespace eb::spec
