#pragma once

// Writes all of a buffer to a file descriptor: write(2) may write less than
// asked, and a signal may interrupt it. The one loop for it (a report file,
// the in-memory TLS copies).

#include "absl/strings/string_view.h"

namespace eb::common {

// Writes all of `data` to `fd`, retrying short writes and EINTR. False on
// failure, errno set (EIO where write(2) returned 0 without one). Does not
// close `fd`.
bool WriteAll(int fd, absl::string_view data);

}  // namespace eb::common
