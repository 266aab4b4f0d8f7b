#pragma once

// What the agent reports about its node when it registers.

#include <vector>

#include "agent/config.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::agent {

// Whether this node's workers can run NCCL: built with it, GPUs present,
// the library loadable, not more slots than GPUs (one rank per GPU), and
// allowed by --transport.
bool NcclUsable(const AgentConfig& config, size_t gpu_count);

// Host name, worker slots, GPUs, network interfaces and the transports the
// workers can run (Gloo always; NCCL when built with it and GPUs exist).
ebnccl::v1::NodeInventory CollectInventory(const AgentConfig& config,
                                           const std::vector<ebnccl::v1::GpuInfo>& gpus);

}  // namespace eb::agent
