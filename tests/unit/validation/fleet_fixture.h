#pragma once

// Fleets for the validation tests: N identical H100 x8 nodes with 8 x 400G
// InfiniBand, named node-00.., and the figures of the shipped baselines.

#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "coordinator/validation/fleet.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::validation::test {

// The inventory its agent would register (common.proto NodeInventory).
inline ebnccl::v1::NodeInventory H100Inventory() {
  ebnccl::v1::NodeInventory inventory;
  for (int g = 0; g < 8; ++g) {
    ebnccl::v1::GpuInfo& gpu = *inventory.add_gpus();
    gpu.set_index(g);
    gpu.set_name("NVIDIA H100 80GB HBM3");
    gpu.set_memory_bytes(int64_t{80} << 30);
  }
  inventory.set_driver_version("580.95.05");
  inventory.set_nccl_version("2.28.9");
  for (int h = 0; h < 8; ++h) {
    ebnccl::v1::HcaInfo& hca = *inventory.add_hcas();
    hca.set_name(absl::StrFormat("mlx5_%d", h));
    hca.set_port(1);
    hca.set_state("4: ACTIVE");
    hca.set_link_layer("InfiniBand");
    hca.set_rate_gbps(400);
    hca.set_fw_ver("28.39.1002");
  }
  inventory.set_bootstrap_interface("eth0");
  ebnccl::v1::NetworkInterface& eth0 = *inventory.add_interfaces();
  eth0.set_name("eth0");
  eth0.set_mtu_bytes(9000);
  return inventory;
}

inline Node H100Node(int i) {
  return NodeFromInventory(absl::StrFormat("node-%02d", i), H100Inventory());
}

inline std::vector<Node> H100Fleet(int n) {
  std::vector<Node> nodes;
  nodes.reserve(n);
  for (int i = 0; i < n; ++i) nodes.push_back(H100Node(i));
  return nodes;
}

inline BaselineTable ShippedFigures() {
  BaselineTable table;
  // Where deploy/config/baselines.toml says they hold: all_reduce at 8G.
  const FigureAt at{ebnccl::v1::COLLECTIVE_ALL_REDUCE, int64_t{8} << 30};
  table.intra.push_back({"H100", 8, 370, "nccl-tests #212", at});
  table.pairs.push_back({400, 1, 46, "nccl-tests #290", at});
  table.pairs.push_back({400, 8, 365, "OCI ncclscout", at});
  return table;
}

}  // namespace eb::validation::test
