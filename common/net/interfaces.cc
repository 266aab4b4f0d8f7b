#include "common/net/interfaces.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/io/bounded_file.h"

namespace eb::common {
namespace {

long ReadSysfsLong(absl::string_view root, const std::string& name, const char* file) {
  // 0 (unknown) when unreadable or not a number.
  absl::StatusOr<std::string> text = ReadFirstLine(absl::StrCat(root, "/", name, "/", file));
  long value = 0;
  if (!text.ok() || !absl::SimpleAtoi(*text, &value)) return 0;
  return value;
}

}  // namespace

absl::StatusOr<std::vector<InterfaceInfo>> ListInterfaces(absl::string_view sysfs_net_root) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) {
    return absl::InternalError(absl::StrCat("getifaddrs: ", std::strerror(errno)));
  }
  std::map<std::string, InterfaceInfo> by_name;
  for (ifaddrs* it = list; it != nullptr; it = it->ifa_next) {
    InterfaceInfo& info = by_name[it->ifa_name];
    info.name = it->ifa_name;
    info.up = (it->ifa_flags & IFF_UP) && (it->ifa_flags & IFF_RUNNING);
    info.loopback = (it->ifa_flags & IFF_LOOPBACK) != 0;
    if (it->ifa_addr == nullptr) continue;
    char text[INET6_ADDRSTRLEN] = {};
    if (it->ifa_addr->sa_family == AF_INET) {
      auto* addr = reinterpret_cast<sockaddr_in*>(it->ifa_addr);
      inet_ntop(AF_INET, &addr->sin_addr, text, sizeof(text));
      info.addresses.insert(info.addresses.begin(), text);
    } else if (it->ifa_addr->sa_family == AF_INET6) {
      auto* addr = reinterpret_cast<sockaddr_in6*>(it->ifa_addr);
      if (IN6_IS_ADDR_LINKLOCAL(&addr->sin6_addr)) continue;
      inet_ntop(AF_INET6, &addr->sin6_addr, text, sizeof(text));
      info.addresses.emplace_back(text);
    }
  }
  freeifaddrs(list);
  std::vector<InterfaceInfo> result;
  for (auto& [name, info] : by_name) {
    info.mtu_bytes = static_cast<int>(ReadSysfsLong(sysfs_net_root, name, "mtu"));
    info.speed_mbps = std::max(0L, ReadSysfsLong(sysfs_net_root, name, "speed"));
    result.push_back(std::move(info));
  }
  return result;
}

absl::StatusOr<std::string> InterfaceAddress(absl::string_view name) {
  auto interfaces = ListInterfaces();
  if (!interfaces.ok()) return interfaces.status();
  for (const InterfaceInfo& info : *interfaces) {
    if (info.name != name) continue;
    if (!info.up)
      return absl::FailedPreconditionError(absl::StrCat("interface ", name, " is down"));
    if (info.addresses.empty()) {
      return absl::FailedPreconditionError(absl::StrCat("interface ", name, " has no address"));
    }
    return info.addresses.front();
  }
  return absl::NotFoundError(absl::StrCat("no network interface named '", name, "' on this host"));
}

}  // namespace eb::common
