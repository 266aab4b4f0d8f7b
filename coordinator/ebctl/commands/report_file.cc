#include "coordinator/ebctl/commands/report_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/io/write_all.h"
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

const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// "-o: " ("" without a flag).
std::string Prefix(const char* flag) {
  return *flag == '\0' ? std::string() : absl::StrCat(flag, ": ");
}

// What is at `path` now (lstat: a link is itself, not its target).
absl::Status CheckExisting(const std::string& path, const char* flag, Replace replace) {
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat(Prefix(flag), "cannot look at ", path, ": ", std::strerror(errno)));
  }
  if (!S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(Prefix(flag), path, " is ", KindOf(info.st_mode),
                                                   "; ebctl writes only regular files"));
  }
  if (replace == Replace::kNo) {
    return absl::InvalidArgumentError(
        absl::StrCat(Prefix(flag), path, " exists; --force replaces it"));
  }
  return absl::OkStatus();
}

// Writes all of `text` and closes `fd`; errno kept on failure.
bool WriteAllAndClose(int fd, const std::string& text) {
  if (!common::WriteAll(fd, text)) {
    const int saved = errno;
    close(fd);
    errno = saved;
    return false;
  }
  return close(fd) == 0;
}

}  // namespace

absl::Status CheckReportPath(const std::string& path, const char* flag, Replace replace) {
  if (path.empty()) return absl::InvalidArgumentError(absl::StrCat(flag, ": empty file name"));
  if (absl::Status existing = CheckExisting(path, flag, replace); !existing.ok()) return existing;
  const std::string dir = DirectoryOf(path);
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": cannot write in ", dir, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status WriteReportFile(const std::string& path, const std::string& text, Replace replace) {
  if (path.empty()) return absl::InvalidArgumentError("empty file name");
  // mkstemp: O_CREAT | O_EXCL, so an existing name (a planted link) is
  // never opened.
  std::string temp = absl::StrCat(path, ".tmp-XXXXXX");
  const int fd = mkstemp(temp.data());
  if (fd < 0) return Errno("cannot create a temporary file beside", path);
  // mkstemp makes it 0600; a report is for reading.
  if (fchmod(fd, 0644) != 0 || !WriteAllAndClose(fd, text)) {
    absl::Status status = Errno("cannot write", temp);
    unlink(temp.c_str());
    return status;
  }
  absl::Status moved;
  if (replace == Replace::kNo) {
    // link(2) never replaces: EEXIST if something appeared since the check.
    if (link(temp.c_str(), path.c_str()) != 0) {
      moved = errno == EEXIST
                  ? absl::InvalidArgumentError(absl::StrCat(path, " exists; --force replaces it"))
                  : Errno("cannot create", path);
    }
  } else if (moved = CheckExisting(path, "", replace); moved.ok()) {
    if (rename(temp.c_str(), path.c_str()) != 0) moved = Errno("cannot rename the file to", path);
  }
  unlink(temp.c_str());  // after link(2), the name is a second one; after rename(2), gone
  return moved;
}

std::string ReportTimeNow() { return FormatUtcTime(absl::ToUnixMillis(absl::Now())); }

}  // namespace eb::ebctl
