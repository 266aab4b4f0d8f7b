#include "coordinator/ebctl/commands/json_output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace eb::ebctl {

absl::StatusOr<JsonOutputFile> JsonOutputFile::Create(const std::string& path) {
  // path, then path.0, path.1, ...: nccl-tests' try_count starts at 0.
  for (int attempt = 0; attempt < 1000; ++attempt) {
    std::string name = attempt == 0 ? path : absl::StrCat(path, ".", attempt - 1);
    // O_EXCL: never an existing name, so never a device, FIFO or the target
    // of a link (issue 32 item 9); O_NOFOLLOW says so twice.
    const int fd = open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) return JsonOutputFile(fd, std::move(name));
    if (errno != EEXIST) {
      return absl::InvalidArgumentError(
          absl::StrCat("-J/--output-file: cannot create ", name, ": ", std::strerror(errno)));
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("-J/--output-file: ", path, " and ", path, ".0 to .998 all exist"));
}

JsonOutputFile::JsonOutputFile(JsonOutputFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), name_(std::move(other.name_)) {}

JsonOutputFile& JsonOutputFile::operator=(JsonOutputFile&& other) noexcept {
  if (this != &other) {
    Discard();
    fd_ = std::exchange(other.fd_, -1);
    name_ = std::move(other.name_);
  }
  return *this;
}

JsonOutputFile::~JsonOutputFile() { Discard(); }

void JsonOutputFile::Discard() {
  if (fd_ < 0) return;
  close(fd_);
  unlink(name_.c_str());
  fd_ = -1;
}

absl::Status JsonOutputFile::WriteAndClose(const std::string& text) {
  size_t written = 0;
  std::string error;
  while (written < text.size() && error.empty()) {
    const ssize_t n = write(fd_, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = std::strerror(errno);
    } else {
      written += static_cast<size_t>(n);
    }
  }
  if (close(fd_) != 0 && error.empty()) error = std::strerror(errno);
  fd_ = -1;
  if (!error.empty()) {
    return absl::InternalError(absl::StrCat("-J/--output-file: writing ", name_, ": ", error));
  }
  return absl::OkStatus();
}

}  // namespace eb::ebctl
