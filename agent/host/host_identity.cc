#include "agent/host/host_identity.h"

#include "absl/strings/str_cat.h"
#include "common/io/bounded_file.h"

namespace eb::agent {
namespace {

// "" when unreadable: the next source is tried.
std::string FirstLine(const std::string& path) {
  absl::StatusOr<std::string> line = common::ReadFirstLine(path);
  return line.ok() ? *std::move(line) : std::string();
}

}  // namespace

std::string HostIdentity(absl::string_view hostname, const HostIdentitySources& sources) {
  if (std::string id = FirstLine(sources.boot_id_file); !id.empty()) {
    return absl::StrCat("boot_id:", id);
  }
  if (std::string id = FirstLine(sources.machine_id_file); !id.empty()) {
    return absl::StrCat("machine_id:", id);
  }
  return absl::StrCat("hostname:", hostname);
}

}  // namespace eb::agent
