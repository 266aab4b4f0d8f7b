#pragma once

// The node's fabric configuration for NCCL, from the agent's flags, checked
// against the host: the HCA ports listed in /sys/class/infiniband (exists,
// port state, rate, link layer IB or Ethernet = RoCE). A configured HCA that
// is missing is an error and one that is down is reported, never a silent
// fallback to TCP. Pure apart from reading the given sysfs root.

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

// Reads each configured port under `sysfs_root` (normally
// /sys/class/infiniband). NOT_FOUND naming the HCA or port when it does not
// exist (listing the HCAs that do). Ports that exist are returned with
// their state ("ACTIVE", "DOWN", ...), rate and link layer.
absl::StatusOr<std::vector<ebnccl::v1::HcaInfo>> CheckHcas(const std::vector<HcaPort>& hcas,
                                                           absl::string_view sysfs_root);

// Every configured port for the inventory: CheckHcas of each entry on its
// own, so that one missing HCA does not hide the others; an entry that
// cannot be read is reported with its name, port and HcaInfo.error (the
// NOT_FOUND message) instead of being left out.
std::vector<ebnccl::v1::HcaInfo> ReportHcas(const std::vector<HcaPort>& hcas,
                                            absl::string_view sysfs_root);

// Problems worth a warning: ports that are not ACTIVE, entries with an
// error.
std::vector<std::string> HcaWarnings(const std::vector<ebnccl::v1::HcaInfo>& hcas);

}  // namespace eb::agent
