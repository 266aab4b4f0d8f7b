#pragma once

// The host's network interfaces (getifaddrs plus /sys/class/net), for the
// agent's inventory and for checking the configured bootstrap interface.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace eb::common {

struct InterfaceInfo {
  std::string name;
  // Numeric IPv4 and IPv6 addresses (IPv6 link-local ones omitted).
  std::vector<std::string> addresses;
  // IFF_UP and IFF_RUNNING.
  bool up = false;
  bool loopback = false;
  int mtu_bytes = 0;
  // From /sys/class/net/<name>/speed; 0 when unknown (virtual links).
  long speed_mbps = 0;
};

// Every interface of this network namespace, sorted by name. INTERNAL when
// getifaddrs fails.
absl::StatusOr<std::vector<InterfaceInfo>> ListInterfaces(
    absl::string_view sysfs_net_root = "/sys/class/net");

// The first IPv4 address of interface `name` (else its first address).
// NOT_FOUND when there is no such interface, FAILED_PRECONDITION when it is
// down or has no address.
absl::StatusOr<std::string> InterfaceAddress(absl::string_view name);

}  // namespace eb::common
