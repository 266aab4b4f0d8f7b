#include "agent/host/host_facts.h"

#include <unistd.h>

#include "agent/host/host_identity.h"
#include "agent/host/infiniband_sysfs.h"
#include "agent/host/nvidia_driver.h"
#include "common/net/interfaces.h"

namespace eb::agent {

HostFacts ReadHostFacts(const AgentCoreConfig& config) {
  HostFacts host;
  char hostname[256] = {};
  if (gethostname(hostname, sizeof(hostname) - 1) == 0) host.hostname = hostname;
  if (config.host_id.empty()) host.host_identity = HostIdentity(host.hostname);
  if (auto interfaces = common::ListInterfaces(); interfaces.ok()) {
    host.interfaces = *std::move(interfaces);
  }
  host.hcas = ReportHcas(config.ib_hcas, config.sysfs_infiniband);
  host.driver_version = DriverVersion();
  return host;
}

}  // namespace eb::agent
