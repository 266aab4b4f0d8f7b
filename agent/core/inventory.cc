#include "agent/core/inventory.h"

#include "common/version/version.h"

namespace eb::agent {

bool NcclUsable(const AgentCoreConfig& config, size_t gpu_count) {
#ifdef EB_HAVE_NCCL
  return (config.transport == "auto" || config.transport == "nccl") && gpu_count > 0 &&
         !config.nccl_version.empty() && static_cast<size_t>(config.worker_slots) <= gpu_count;
#else
  (void)config;
  (void)gpu_count;
  return false;
#endif
}

ebnccl::v1::NodeInventory BuildInventory(const AgentCoreConfig& config,
                                         const std::vector<ebnccl::v1::GpuInfo>& gpus,
                                         const HostFacts& host) {
  ebnccl::v1::NodeInventory inventory;
  inventory.set_hostname(host.hostname);
  inventory.set_host_id(config.host_id.empty() ? host.host_identity
                                               : "configured:" + config.host_id);
  inventory.set_worker_slots(config.worker_slots);
  for (const ebnccl::v1::GpuInfo& gpu : gpus) *inventory.add_gpus() = gpu;
  for (const common::InterfaceInfo& info : host.interfaces) {
    ebnccl::v1::NetworkInterface& out = *inventory.add_interfaces();
    out.set_name(info.name);
    for (const std::string& address : info.addresses) out.add_addresses(address);
    out.set_up(info.up);
    out.set_mtu_bytes(info.mtu_bytes);
    out.set_speed_mbps(info.speed_mbps);
  }
  inventory.set_bootstrap_interface(config.bootstrap_interface);
  if (config.transport == "auto" || config.transport == "gloo") {
    inventory.add_transports(ebnccl::v1::TRANSPORT_GLOO);
  }
  if (NcclUsable(config, gpus.size())) inventory.add_transports(ebnccl::v1::TRANSPORT_NCCL);
  inventory.set_nccl_version(config.nccl_version);
  // Missing or down HCAs are reported, not left out, so that `ebctl nodes`
  // shows them.
  for (const ebnccl::v1::HcaInfo& hca : host.hcas) *inventory.add_hcas() = hca;
  inventory.set_driver_version(host.driver_version);
  inventory.set_agent_version(kVersion);
  return inventory;
}

}  // namespace eb::agent
