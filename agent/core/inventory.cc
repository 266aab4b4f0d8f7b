#include "agent/core/inventory.h"

#include <unistd.h>

#include "agent/host/host_identity.h"
#include "agent/host/infiniband_sysfs.h"
#include "agent/host/nvidia_driver.h"
#include "common/net/interfaces.h"
#include "common/version/version.h"

namespace eb::agent {

bool NcclUsable(const AgentConfig& config, size_t gpu_count) {
#ifdef EB_HAVE_NCCL
  return (config.transport == "auto" || config.transport == "nccl") && gpu_count > 0 &&
         !config.nccl_version.empty() && static_cast<size_t>(config.worker_slots) <= gpu_count;
#else
  (void)config;
  (void)gpu_count;
  return false;
#endif
}

ebnccl::v1::NodeInventory CollectInventory(const AgentConfig& config,
                                           const std::vector<ebnccl::v1::GpuInfo>& gpus) {
  ebnccl::v1::NodeInventory inventory;
  char hostname[256] = {};
  if (gethostname(hostname, sizeof(hostname) - 1) == 0) inventory.set_hostname(hostname);
  inventory.set_host_id(config.host_id.empty() ? HostIdentity(inventory.hostname())
                                               : "configured:" + config.host_id);
  inventory.set_worker_slots(config.worker_slots);
  for (const ebnccl::v1::GpuInfo& gpu : gpus) *inventory.add_gpus() = gpu;
  if (auto interfaces = common::ListInterfaces(); interfaces.ok()) {
    for (const common::InterfaceInfo& info : *interfaces) {
      ebnccl::v1::NetworkInterface& out = *inventory.add_interfaces();
      out.set_name(info.name);
      for (const std::string& address : info.addresses) out.add_addresses(address);
      out.set_up(info.up);
      out.set_mtu_bytes(info.mtu_bytes);
      out.set_speed_mbps(info.speed_mbps);
    }
  }
  inventory.set_bootstrap_interface(config.bootstrap_interface);
  if (config.transport == "auto" || config.transport == "gloo") {
    inventory.add_transports(ebnccl::v1::TRANSPORT_GLOO);
  }
  if (NcclUsable(config, gpus.size())) inventory.add_transports(ebnccl::v1::TRANSPORT_NCCL);
  inventory.set_nccl_version(config.nccl_version);
  // Fresh at every registration: a port may have gone down, or an HCA
  // vanished, since start. Those are reported, not left out, so that
  // `ebctl nodes` shows them.
  for (ebnccl::v1::HcaInfo& hca : ReportHcas(config.ib_hcas, config.sysfs_infiniband)) {
    *inventory.add_hcas() = std::move(hca);
  }
  inventory.set_driver_version(DriverVersion());
  inventory.set_agent_version(kVersion);
  return inventory;
}

}  // namespace eb::agent
