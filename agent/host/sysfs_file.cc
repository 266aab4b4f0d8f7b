#include "agent/host/sysfs_file.h"

#include "common/io/bounded_file.h"

namespace eb::agent {

absl::StatusOr<std::string> ReadSysfsValue(const std::string& path, size_t max_bytes) {
  return common::ReadFirstLine(path, max_bytes);
}

std::string ReadSysfsValueOrEmpty(const std::string& path) {
  absl::StatusOr<std::string> value = ReadSysfsValue(path);
  return value.ok() ? *std::move(value) : std::string();
}

}  // namespace eb::agent
