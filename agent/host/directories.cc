#include "agent/host/directories.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

namespace eb::agent {

absl::Status CreateDirectories(const std::string& path) {
  // Every directory made here, and `path` itself, is the agent's user's
  // only (0700, SECURITY_FINDINGS case 16): the run directory holds the
  // workers' socket and logs. Missing parents are made one by one so that
  // each gets the mode, whatever the umask.
  std::vector<std::filesystem::path> missing;
  std::error_code error;
  for (std::filesystem::path p = std::filesystem::path(path).lexically_normal();
       !p.empty() && !std::filesystem::exists(p, error); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (mkdir(it->c_str(), 0700) != 0 && errno != EEXIST) {
      return absl::FailedPreconditionError(std::strerror(errno));
    }
  }
  // Not a shared sticky directory such as /tmp given as --run-dir: that one
  // keeps its mode (what is made inside it is still 0700).
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return absl::FailedPreconditionError(std::strerror(errno));
  if ((st.st_mode & S_ISVTX) == 0 && (st.st_mode & 07777) != 0700 &&
      chmod(path.c_str(), 0700) != 0) {
    return absl::FailedPreconditionError(std::strerror(errno));
  }
  return absl::OkStatus();
}

}  // namespace eb::agent
