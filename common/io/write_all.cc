#include "common/io/write_all.h"

#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace eb::common {

bool WriteAll(int fd, absl::string_view data) {
  size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = write(fd, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    written += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace eb::common
