#pragma once

// The host's side of the node inventory (agent/core/inventory.h), read from
// the host: its name, identity, network interfaces, the configured HCA
// ports and the NVIDIA driver's version.

#include "agent/core/agent_core_config.h"
#include "agent/core/inventory.h"

namespace eb::agent {

// Reads every field of HostFacts afresh: a port may have gone down, or an
// HCA vanished, since start. The host identity is read only when
// config.host_id is empty; the HCAs are config.ib_hcas under
// config.sysfs_infiniband.
HostFacts ReadHostFacts(const AgentCoreConfig& config);

}  // namespace eb::agent
