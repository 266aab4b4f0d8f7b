#include "common/io/bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace eb::common {
namespace {

// What a non-regular file is, for the error that refuses it.
const char* TypeName(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

bool IsDevNull(const struct stat& st) {
  return S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3;
}

absl::Status OpenError(const std::string& path, const char* what, int error) {
  const std::string prefix = absl::StrCat(path, ": ", what, " ");
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(absl::StrCat(prefix, "does not exist"));
    case ELOOP:
      return absl::FailedPreconditionError(absl::StrCat(prefix, "is a symbolic link loop"));
    case ENXIO:
      // open() of a UNIX socket, or of a FIFO without readers for writing.
      return absl::FailedPreconditionError(absl::StrCat(prefix, "is a socket, not a regular file"));
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(absl::StrCat(prefix, "cannot be read: ", strerror(error)));
    default:
      return absl::InternalError(absl::StrCat(prefix, "cannot be read: ", strerror(error)));
  }
}

}  // namespace

size_t MaxFileBytes(FileKind kind) {
  switch (kind) {
    case FileKind::kConfig:
      return kMaxConfigFileBytes;
    case FileKind::kTlsPem:
      return kMaxTlsPemFileBytes;
    case FileKind::kBaselines:
      return kMaxBaselinesFileBytes;
    case FileKind::kSysfsValue:
      return kMaxSysfsValueFileBytes;
    case FileKind::kProcTable:
      return kMaxProcTableFileBytes;
    case FileKind::kTopology:
      return kMaxTopologyFileBytes;
  }
  return kMaxSysfsValueFileBytes;
}

const char* FileKindName(FileKind kind) {
  switch (kind) {
    case FileKind::kConfig:
      return "config file";
    case FileKind::kTlsPem:
      return "TLS file";
    case FileKind::kBaselines:
      return "baselines file";
    case FileKind::kTopology:
      return "topology file";
    case FileKind::kSysfsValue:
    case FileKind::kProcTable:
      return "file";
  }
  return "file";
}

absl::StatusOr<std::string> ReadBoundedFile(const std::string& path, FileKind kind,
                                            absl::Duration deadline) {
  return ReadBoundedFile(path, MaxFileBytes(kind), FileKindName(kind), deadline);
}

absl::StatusOr<std::string> ReadBoundedFile(const std::string& path, size_t max_bytes,
                                            const char* what, absl::Duration deadline) {
  const absl::Time give_up = absl::Now() + deadline;
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
  // writer, forever; it is refused below, before any read.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return OpenError(path, what, errno);
  absl::Cleanup close_fd = [fd] { close(fd); };
  struct stat st {};
  if (fstat(fd, &st) != 0) return OpenError(path, what, errno);
  if (IsDevNull(st)) return std::string();
  if (!S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": ", what, " is ", TypeName(st.st_mode), ", not a regular file"));
  }
  const auto too_large = [&] {
    return absl::OutOfRangeError(
        absl::StrCat(path, ": ", what, " is larger than the limit of ", max_bytes, " bytes"));
  };
  // /proc and sysfs report 0 or 4096 whatever they hold: the size is a hint
  // to refuse early, the read below is the bound.
  if (st.st_size > 0 && static_cast<size_t>(st.st_size) > max_bytes) return too_large();
  std::string data(max_bytes + 1, '\0');
  size_t done = 0;
  while (done < data.size()) {
    if (absl::Now() > give_up) {
      return absl::DeadlineExceededError(
          absl::StrCat(path, ": ", what, " not read within ", absl::FormatDuration(deadline)));
    }
    const ssize_t n = read(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return OpenError(path, what, errno);
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  if (done > max_bytes) return too_large();
  data.resize(done);
  return data;
}

absl::StatusOr<std::string> ReadFirstLine(const std::string& path, size_t max_bytes) {
  absl::StatusOr<std::string> data = ReadBoundedFile(path, max_bytes, "file");
  if (!data.ok()) return data.status();
  const size_t newline = data->find('\n');
  if (newline != std::string::npos) data->resize(newline);
  return std::string(absl::StripAsciiWhitespace(*data));
}

}  // namespace eb::common
