#pragma once

// The one way the agent reads a value from sysfs (and /proc): its files are
// untrusted input (a fake tree, a broken driver, a FIFO someone put there),
// so a read is bounded and never blocks; a file that is too long, or not a
// regular file, gives an error naming it instead of its content.

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"

namespace eb::agent {

// sysfs values are one short line (a link speed, a rate, a version); a
// page is the most the kernel writes into one attribute.
inline constexpr size_t kMaxSysfsValueBytes = 4096;

// The first line of the file at `path`, without surrounding whitespace.
// NOT_FOUND when it does not exist; OUT_OF_RANGE when it holds more than
// `max_bytes`; FAILED_PRECONDITION when it is not a regular file; INTERNAL
// for another read error. Each message names the file. Reads at most
// max_bytes + 1 bytes; opens with O_NONBLOCK, so it does not block.
absl::StatusOr<std::string> ReadSysfsValue(const std::string& path,
                                           size_t max_bytes = kMaxSysfsValueBytes);

// ReadSysfsValue, or "" when the file cannot be read: for values whose
// absence and unreadability mean the same (unknown).
std::string ReadSysfsValueOrEmpty(const std::string& path);

}  // namespace eb::agent
