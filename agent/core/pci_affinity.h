#pragma once

// Which configured HCA is closest to each GPU (issue 12, part 2), from the
// PCI topology the host's sysfs describes (agent/host/pci_topology.h reads
// it). Closest means, as NCCL ranks paths: behind the same PCIe switch
// (a common bridge below the root complex: PIX/PXB in `nvidia-smi topo`),
// else on the same NUMA node (NODE), else none (SYS). Pure.

#include <string>
#include <vector>

#include "ebnccl/v1/common.pb.h"

namespace eb::agent {

// One PCI function as sysfs places it.
struct PciDevice {
  // GPU: its bus id; HCA: its device name ("mlx5_103").
  std::string name;
  // Its PCI bus id, "0000:4f:00.0"; empty when sysfs does not place it.
  std::string bus_id;
  // The PCI bridges above it, from the root port down (bus ids; the root
  // complex "pci0000:00" is not one): the components of its sysfs path.
  std::vector<std::string> bridges;
  // NUMA node, -1 when unknown.
  int numa_node = -1;
  // Its PCIe link (current and maximum speed and width); empty when sysfs
  // has none (agent/core/pcie_link.h).
  ebnccl::v1::PcieLink pcie_link;
};

struct PciTopology {
  std::vector<PciDevice> gpus;
  std::vector<PciDevice> hcas;
};

inline constexpr char kAffinitySwitch[] = "same PCIe switch";
inline constexpr char kAffinityNuma[] = "same NUMA node";
inline constexpr char kAffinityNone[] = "none";

struct GpuAffinity {
  std::string gpu_bus_id;
  // Nearest HCA, or "" when reason is kAffinityNone.
  std::string hca;
  std::string reason;
  int numa_node = -1;
};

// One answer per GPU of `topology.gpus`, in that order. Among the HCAs
// closest to a GPU (most bridges in common, then the same NUMA node), the
// one fewest GPUs already chose wins, then the first by name in natural
// order (mlx5_2 before mlx5_10): on a node whose switches each hold two
// GPUs and two HCAs, every GPU gets its own HCA, as NCCL's rails do.
std::vector<GpuAffinity> ComputeAffinity(const PciTopology& topology);

// Writes nearest_hca, numa_node and hca_affinity into the GPUs whose bus id
// (canonical form) has an answer; others keep numa_node -1 and empty fields.
void ApplyAffinity(const std::vector<GpuAffinity>& affinity,
                   std::vector<ebnccl::v1::GpuInfo>& gpus);

}  // namespace eb::agent
