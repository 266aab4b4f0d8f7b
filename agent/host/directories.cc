#include "agent/host/directories.h"

#include <filesystem>
#include <system_error>

namespace eb::agent {

absl::Status CreateDirectories(const std::string& path) {
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) return absl::FailedPreconditionError(error.message());
  return absl::OkStatus();
}

}  // namespace eb::agent
