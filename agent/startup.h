#pragma once

// Turning eb-agent's flags and config file into a complete AgentConfig:
// defaults that depend on the host (node name, slots from the GPUs, paths
// beside the binary), and the checks that must stop the agent before it
// registers (a configured interface or HCA that does not exist is an error,
// never a silent fallback).

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "agent/config_file.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::agent {

// Fills the host-dependent defaults of `settings->config` and normalizes
// addresses; learns the workers' NCCL version by running the worker (with
// the workers' environment, built from `agent_env`, the agent's own).
// INVALID_ARGUMENT naming the flag or key on bad values, and when
// `agent_env` or --worker-env sets a variable the agent owns
// (env_policy.h). Logs nothing (logging may not be set up yet).
absl::Status ResolveAgentConfig(AgentSettings* settings, const std::vector<std::string>& agent_env);

// The checks that must pass before the agent starts: the owned GPUs exist
// (the error names settings.gpus_origin), bootstrap interface up,
// configured HCAs present (ports not ACTIVE are logged as warnings), worker
// binary executable. Logs the HCAs it found. --check-config runs the fuller
// CheckAgentConfig instead, which reports every problem rather than the first.
absl::Status CheckHostForStart(const AgentSettings& settings);

// The GPUs this agent owns (after --gpus).
std::vector<ebnccl::v1::GpuInfo> AgentGpus(const AgentConfig& config);

}  // namespace eb::agent
