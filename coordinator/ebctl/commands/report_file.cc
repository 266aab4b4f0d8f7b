#include "coordinator/ebctl/commands/report_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "coordinator/ebctl/output/labels.h"

namespace eb::ebctl {

namespace {

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

absl::Status Errno(const std::string& what, const std::string& path) {
  return absl::InternalError(absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

}  // namespace

absl::Status CheckReportPath(const std::string& path, const char* flag) {
  if (path.empty()) return absl::InvalidArgumentError(absl::StrCat(flag, ": empty file name"));
  struct stat info {};
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": ", path, " is a directory"));
  }
  const std::string dir = DirectoryOf(path);
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": cannot write in ", dir, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status WriteReportFile(const std::string& path, const std::string& html) {
  const std::string temp = absl::StrCat(path, ".tmp-", getpid());
  const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return Errno("cannot create", temp);
  size_t written = 0;
  while (written < html.size()) {
    const ssize_t n = write(fd, html.data() + written, html.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      absl::Status status = Errno("cannot write", temp);
      close(fd);
      unlink(temp.c_str());
      return status;
    }
    written += static_cast<size_t>(n);
  }
  if (close(fd) != 0) {
    absl::Status status = Errno("cannot write", temp);
    unlink(temp.c_str());
    return status;
  }
  if (rename(temp.c_str(), path.c_str()) != 0) {
    absl::Status status = Errno("cannot rename the report to", path);
    unlink(temp.c_str());
    return status;
  }
  return absl::OkStatus();
}

std::string ReportTimeNow() { return FormatUtcTime(absl::ToUnixMillis(absl::Now())); }

}  // namespace eb::ebctl
