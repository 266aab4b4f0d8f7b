#pragma once

// What `eb-agent --check-config` prints first: the configuration the agent
// would run on, after flags, file and host-dependent defaults.

#include <string>

#include "agent/config_file.h"

namespace eb::agent {

// The effective configuration as agent.toml text that ApplyAgentConfigFile
// reads back to the same settings. agent.workers is printed as the resolved
// config.worker_slots.
std::string FormatEffectiveConfig(const AgentSettings& settings);

}  // namespace eb::agent
