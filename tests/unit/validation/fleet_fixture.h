#pragma once

// Fleets for the validation tests: N identical H100 x8 nodes with 8 x 400G
// InfiniBand, named node-00.., and the figures of the shipped baselines.

#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "coordinator/validation/fleet.h"

namespace eb::validation::test {

inline Node H100Node(int i) {
  Node node;
  node.name = absl::StrFormat("node-%02d", i);
  node.gpu_model = "NVIDIA H100 80GB HBM3";
  node.gpu_count = 8;
  node.gpu_memory_bytes = int64_t{80} << 30;
  node.driver_version = "580.95.05";
  node.cuda_version = "13.0";
  node.nccl_version = "2.28.9";
  for (int h = 0; h < 8; ++h) {
    node.hcas.push_back({absl::StrFormat("mlx5_%d", h), 1, "4: ACTIVE", "InfiniBand", 400});
  }
  node.bootstrap_interface = "eth0";
  return node;
}

inline std::vector<Node> H100Fleet(int n) {
  std::vector<Node> nodes;
  nodes.reserve(n);
  for (int i = 0; i < n; ++i) nodes.push_back(H100Node(i));
  return nodes;
}

inline BaselineTable ShippedFigures() {
  BaselineTable table;
  table.intra.push_back({"H100", 8, 370, "nccl-tests #212"});
  table.pairs.push_back({400, 1, 46, "nccl-tests #290"});
  table.pairs.push_back({400, 8, 365, "OCI ncclscout"});
  return table;
}

}  // namespace eb::validation::test
