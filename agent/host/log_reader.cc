#include "agent/host/log_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace eb::agent {
namespace {

// realpath(3), or "" with errno set.
std::string RealPath(const std::string& path) {
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) == nullptr) return "";
  return resolved;
}

}  // namespace

ebnccl::v1::LogContent ReadLogPage(const std::string& run_dir, const std::string& path,
                                   int64_t offset, int64_t max_bytes) {
  ebnccl::v1::LogContent content;
  content.set_path(path);
  auto fail = [&content, &path](const std::string& why) {
    content.set_error(absl::StrCat("cannot read ", path, ": ", why));
    return content;
  };
  const std::string root = RealPath(run_dir);
  if (root.empty()) return fail(absl::StrCat("run directory: ", std::strerror(errno)));
  const std::string real = RealPath(path);
  if (real.empty()) return fail(std::strerror(errno));
  if (!absl::StartsWith(real, absl::StrCat(root, "/"))) {
    return fail("it is not inside the agent's run directory");
  }
  // O_NOFOLLOW: the checked path is the file opened, not a link swapped in;
  // O_NONBLOCK: a FIFO cannot hang the agent (it is refused below).
  const int fd = open(real.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fail(std::strerror(errno));
  absl::Cleanup close_fd = [fd] { close(fd); };
  struct stat st {};
  if (fstat(fd, &st) != 0) return fail(std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return fail("not a regular file");
  const int64_t size = st.st_size;
  int64_t start = offset;
  if (start < 0) start = size > max_bytes ? size - max_bytes : 0;
  if (start > size) start = size;
  const int64_t length = std::min(max_bytes, size - start);
  std::string data(static_cast<size_t>(length), '\0');
  int64_t done = 0;
  while (done < length) {
    const ssize_t n = pread(fd, data.data() + done, static_cast<size_t>(length - done),
                            static_cast<off_t>(start + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(std::strerror(errno));
    if (n == 0) break;  // the file shrank
    done += n;
  }
  data.resize(static_cast<size_t>(done));
  content.set_content(std::move(data));
  content.set_offset(start);
  content.set_next_offset(start + done);
  content.set_size(size);
  content.set_truncated(start > 0 || start + done < size);
  return content;
}

}  // namespace eb::agent
