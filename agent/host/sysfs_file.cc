#include "agent/host/sysfs_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace eb::agent {

absl::StatusOr<std::string> ReadSysfsValue(const std::string& path, size_t max_bytes) {
  // O_NONBLOCK: a FIFO in the tree cannot hang the agent (it is refused
  // below, after the open that would otherwise wait for a writer).
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int error = errno;
    const std::string why = absl::StrCat(path, ": ", std::strerror(error));
    if (error == ENOENT || error == ENOTDIR) return absl::NotFoundError(why);
    return absl::InternalError(why);
  }
  absl::Cleanup close_fd = [fd] { close(fd); };
  struct stat st {};
  if (fstat(fd, &st) != 0) return absl::InternalError(absl::StrCat(path, ": ", strerror(errno)));
  if (!S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": not a regular file"));
  }
  // sysfs reports 4096 for every attribute's size: read, do not trust it.
  std::string data(max_bytes + 1, '\0');
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = read(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return absl::InternalError(absl::StrCat(path, ": ", strerror(errno)));
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  if (done > max_bytes) {
    return absl::OutOfRangeError(absl::StrCat(path, ": longer than ", max_bytes, " bytes"));
  }
  data.resize(done);
  const size_t newline = data.find('\n');
  if (newline != std::string::npos) data.resize(newline);
  return std::string(absl::StripAsciiWhitespace(data));
}

std::string ReadSysfsValueOrEmpty(const std::string& path) {
  absl::StatusOr<std::string> value = ReadSysfsValue(path);
  return value.ok() ? *std::move(value) : std::string();
}

}  // namespace eb::agent
