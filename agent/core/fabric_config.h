#pragma once

// The node's fabric configuration for NCCL, from the agent's flags: the HCA
// ports NCCL may use, in NCCL_IB_HCA's exact-match form, and what is wrong
// with the ports the host reports (agent/host/infiniband_sysfs.h reads them
// from /sys/class/infiniband). A configured HCA that is missing is an error
// and one that is down is reported, never a silent fallback to TCP. Pure.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::agent {

struct HcaPort {
  std::string name;
  // 0 = every port of the device (NCCL's default when no port is given).
  int port = 0;
};

// Parses "--ib-hca": a comma-separated list of HCA[:PORT]; a leading '='
// (NCCL's exact-match prefix) is accepted and implied anyway. '^' (exclude)
// is refused: the agent needs the exact devices to check. INVALID_ARGUMENT
// naming --ib-hca.
absl::StatusOr<std::vector<HcaPort>> ParseHcaList(absl::string_view text);

// NCCL_IB_HCA in exact-match form, e.g. "=mlx5_100:1,mlx5_101:1" (without
// '=' NCCL treats each entry as a prefix: mlx5_1 also matches mlx5_10..19).
std::string NcclIbHcaValue(const std::vector<HcaPort>& hcas);

// Problems worth a warning: ports that are not ACTIVE, entries with an
// error.
std::vector<std::string> HcaWarnings(const std::vector<ebnccl::v1::HcaInfo>& hcas);

}  // namespace eb::agent
