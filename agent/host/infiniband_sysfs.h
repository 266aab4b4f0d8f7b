#pragma once

// The configured HCA ports as the host lists them under
// /sys/class/infiniband/<hca>/ports/<port>/: whether they exist, their
// state, rate and link layer (IB, or Ethernet = RoCE).

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "agent/core/fabric_config.h"
#include "agent/core/port_counters.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::agent {

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

// Every configured port's link state and counters (PortCounterNames, from
// counters/ and hw_counters/; a counter a port lacks is left out), for the
// evidence of a test. A port that cannot be read has its error set.
std::vector<PortSnapshot> ReadPortSnapshots(const std::vector<HcaPort>& hcas,
                                            absl::string_view sysfs_root);

}  // namespace eb::agent
