#pragma once

// What the agent reports about its node when it registers.

#include <vector>

#include "agent/config.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::agent {

// Host name, worker slots, GPUs, network interfaces and the transports the
// workers can run (Gloo always; NCCL when built with it and GPUs exist).
ebnccl::v1::NodeInventory CollectInventory(const AgentConfig& config,
                                           const std::vector<ebnccl::v1::GpuInfo>& gpus);

}  // namespace eb::agent
