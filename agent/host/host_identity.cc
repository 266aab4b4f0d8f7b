#include "agent/host/host_identity.h"

#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace eb::agent {
namespace {

std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return std::string(absl::StripAsciiWhitespace(line));
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
