#pragma once

// /etc/ebnccl/agent.toml: the keys eb-agent reads from its config file
// (docs/CONFIG.md documents each one), bound to the fields they fill.
// main.cc parses the flags, then applies the file skipping the keys whose
// flags were given (flag > file > default), then resolves what is left to
// the host (node name, worker slots, worker binary, run dir).

#include <set>
#include <string>

#include "absl/status/status.h"
#include "agent/config.h"
#include "common/config/toml_file.h"

namespace eb::agent {

inline constexpr char kDefaultConfigPath[] = "/etc/ebnccl/agent.toml";

// Everything the agent's file and flags set: the AgentConfig the service
// runs on, plus what main() resolves or uses itself.
struct AgentSettings {
  AgentConfig config;
  // Worker slots asked for; 0 = one per owned GPU (at least 1). main()
  // resolves it into config.worker_slots.
  int workers = 0;
  // spdlog level name and optional log file (main() passes them to
  // InitLogging).
  std::string log_level = "info";
  std::string log_file;
  // Where config.gpu_indices came from, for errors found when they are
  // checked against the host: "--gpus" or "FILE:LINE: key 'agent.gpus'".
  std::string gpus_origin = "--gpus";
};

// The schema of agent.toml bound to `settings`, which must outlive it. Each
// key names the flag that overrides it (Key::flag()). Values are checked as
// the flags are: the coordinator address is normalised to HOST:PORT, HCA
// entries parsed (ParseHcaList), GPU indices unique, [worker.env] names
// non-empty without '=' and none of the variables the agent owns
// (env_policy.h).
common::ConfigSchema AgentConfigSchema(AgentSettings* settings);

// Loads `path` and applies it to `settings`, skipping the keys whose flags
// are in `given_flags` (e.g. "--workers"). A missing file is an error when
// `required` (--config was given) and ignored otherwise. INVALID_ARGUMENT
// naming the file, line and key (see common::ConfigSchema::Apply).
absl::Status ApplyAgentConfigFile(const std::string& path, bool required,
                                  const std::set<std::string>& given_flags,
                                  AgentSettings* settings);

}  // namespace eb::agent
