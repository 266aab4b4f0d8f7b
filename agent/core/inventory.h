#pragma once

// What the agent reports about its node when it registers, built from what
// the host says about itself (HostFacts, read by agent/host/host_facts.h).
// Pure.

#include <string>
#include <vector>

#include "agent/core/agent_core_config.h"
#include "common/net/interfaces.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::agent {

// The host's side of the inventory, read afresh at every registration.
struct HostFacts {
  std::string hostname;
  // HostIdentity of the machine; unused (and not read) when the agent was
  // given config.host_id.
  std::string host_identity;
  // The network interfaces; empty when they cannot be listed.
  std::vector<common::InterfaceInfo> interfaces;
  // Every configured HCA port, missing ones with their error (ReportHcas).
  std::vector<ebnccl::v1::HcaInfo> hcas;
  // The NVIDIA driver's version, or "".
  std::string driver_version;
};

// Whether this node's workers can run NCCL: built with it, GPUs present,
// the library loadable, not more slots than GPUs (one rank per GPU), and
// allowed by --transport.
bool NcclUsable(const AgentCoreConfig& config, size_t gpu_count);

// Host name, host identity ("configured:<id>" when config.host_id is set),
// worker slots, GPUs, network interfaces, HCAs, versions and the transports
// the workers can run (Gloo always unless --transport nccl; NCCL when
// NcclUsable).
ebnccl::v1::NodeInventory BuildInventory(const AgentCoreConfig& config,
                                         const std::vector<ebnccl::v1::GpuInfo>& gpus,
                                         const HostFacts& host);

}  // namespace eb::agent
