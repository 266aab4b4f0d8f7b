#include "agent/host/real_host_probe.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "agent/host/infiniband_sysfs.h"
#include "agent/host/nvidia_driver.h"
#include "agent/host/system_nvml.h"
#include "common/net/address.h"

namespace eb::agent {
namespace {}  // namespace

absl::StatusOr<std::vector<common::InterfaceInfo>> RealHostProbe::Interfaces() const {
  return common::ListInterfaces();
}

absl::StatusOr<std::vector<ebnccl::v1::HcaInfo>> RealHostProbe::Hcas(
    const std::vector<HcaPort>& hcas, const std::string& sysfs_root) const {
  return CheckHcas(hcas, sysfs_root);
}

DiscoveredGpus RealHostProbe::Gpus() const { return DiscoverGpusWithDetails(SystemNvml()); }

absl::Status RealHostProbe::Connect(const std::string& host_port, absl::Duration timeout) const {
  auto target = common::ParseHostPort(host_port, common::kDefaultCoordinatorPort, "coordinator");
  if (!target.ok()) return target.status();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* addresses = nullptr;
  const std::string port = std::to_string(target->port);
  if (const int error = getaddrinfo(target->host.c_str(), port.c_str(), &hints, &addresses);
      error != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot resolve ", target->host, ": ", gai_strerror(error)));
  }
  absl::Cleanup free_addresses = [addresses] { freeaddrinfo(addresses); };
  const absl::Time deadline = absl::Now() + timeout;
  std::string last_error = "no address";
  bool timed_out = false;
  // Non-blocking connect + poll: a black-holed coordinator costs the
  // timeout, not the kernel's two-minute SYN retry.
  for (addrinfo* address = addresses; address != nullptr; address = address->ai_next) {
    const int fd = socket(address->ai_family, address->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                          address->ai_protocol);
    if (fd < 0) {
      last_error = strerror(errno);
      continue;
    }
    absl::Cleanup close_fd = [fd] { close(fd); };
    if (connect(fd, address->ai_addr, address->ai_addrlen) == 0) return absl::OkStatus();
    if (errno != EINPROGRESS) {
      last_error = strerror(errno);
      continue;
    }
    pollfd poll_fd{fd, POLLOUT, 0};
    const int64_t wait_ms = std::max<int64_t>(0, absl::ToInt64Milliseconds(deadline - absl::Now()));
    const int ready = poll(&poll_fd, 1, static_cast<int>(wait_ms));
    if (ready == 0) {
      timed_out = true;
      last_error = absl::StrCat("no answer within ", absl::FormatDuration(timeout));
      continue;
    }
    int error = 0;
    socklen_t length = sizeof(error);
    if (ready < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
    if (error == 0) return absl::OkStatus();
    last_error = strerror(error);
  }
  if (timed_out) return absl::DeadlineExceededError(last_error);
  return absl::UnavailableError(last_error);
}

absl::Status RealHostProbe::CheckExecutable(const std::string& path) const {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", strerror(errno)));
  }
  if (!S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, " is not a regular file"));
  }
  if (access(path.c_str(), X_OK) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, " is not executable: ", strerror(errno)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> RealHostProbe::CheckWritableDir(const std::string& path) const {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path existing = fs::absolute(path, error);
  if (error) return absl::InvalidArgumentError(absl::StrCat(path, ": ", error.message()));
  bool created_later = false;
  // The agent creates the run dir (and its parents) at start; what must
  // hold now is that the nearest existing ancestor lets it.
  while (!fs::exists(existing, error)) {
    created_later = true;
    if (!existing.has_parent_path() || existing.parent_path() == existing) break;
    existing = existing.parent_path();
  }
  if (!fs::is_directory(existing, error)) {
    return absl::InvalidArgumentError(absl::StrCat(existing.string(), " is not a directory"));
  }
  if (access(existing.c_str(), W_OK | X_OK) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(existing.string(), " is not writable: ", strerror(errno)));
  }
  return created_later ? absl::StrCat("will be created in ", existing.string())
                       : std::string("exists, writable");
}

}  // namespace eb::agent
