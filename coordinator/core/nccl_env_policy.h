#pragma once

// Which NCCL variables a test may set for its workers. Tuning and debugging
// knobs are allowed; the fabric configuration (HCAs, interfaces, GID index,
// ports) belongs to each agent's configuration, because it differs per node
// and a wrong value silently falls back to slower paths. Pure.

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace eb::coordinator {

// The allowed names, sorted.
const std::vector<std::string>& AllowedNcclEnv();

// INVALID_ARGUMENT naming `nccl_env` and the first refused key (with the
// allowed list), or an empty/multi-line value.
absl::Status CheckNcclEnv(const std::map<std::string, std::string>& env);

}  // namespace eb::coordinator
