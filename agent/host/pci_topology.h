#pragma once

// Where the GPUs and the configured HCAs sit in the host's PCI tree, read
// from sysfs for the GPU-HCA affinity (agent/core/pci_affinity.h). A GPU is
// found as <pci_root>/<bus id> (normally /sys/bus/pci/devices), an HCA as
// <infiniband_root>/<hca>/device (normally /sys/class/infiniband); both are
// links into /sys/devices/pci<domain>:<bus>/<root port>/.../<function>,
// whose path names the bridges above the device. Tests point both roots
// at fake trees.

#include <string>
#include <vector>

#include "agent/core/agent_core_config.h"
#include "agent/core/pci_affinity.h"

namespace eb::agent {

// The PCIe link of the PCI device whose sysfs directory is `dir`: its
// current_link_* and max_link_* files, each read bounded; a file that is
// missing leaves its value unknown, one that is too long or not the
// expected form too, and PcieLink.error names it.
ebnccl::v1::PcieLink ReadPcieLink(const std::string& dir);

// The device behind `link` (a sysfs link or directory): its bus id, the
// bridges above it, its numa_node file (-1 when missing or negative) and
// its PCIe link (ReadPcieLink).
// A link that does not resolve gives a device with only `name` set.
PciDevice ReadPciDevice(const std::string& link, const std::string& name);

PciTopology ReadPciTopology(const std::string& pci_root, const std::string& infiniband_root,
                            const std::vector<std::string>& gpu_bus_ids,
                            const std::vector<std::string>& hca_names);

// The HCAs the affinity chooses from: the configured ones (--ib-hca), or
// every HCA under config.sysfs_infiniband when none is configured.
std::vector<std::string> AffinityHcaNames(const AgentCoreConfig& config);

}  // namespace eb::agent
