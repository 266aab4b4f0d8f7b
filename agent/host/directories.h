#pragma once

// Directories the agent creates on the host: its run directory at start,
// each test's log directory before the workers start writing there.

#include <string>

#include "absl/status/status.h"

namespace eb::agent {

// Creates `path` and its missing parents, each mode 0700, and sets `path`
// to 0700 when it already exists (the agent's user only; a sticky shared
// directory such as /tmp keeps its mode).
// FAILED_PRECONDITION whose message is the system's reason only ("Permission
// denied"): callers name the directory and the setting it comes from.
absl::Status CreateDirectories(const std::string& path);

}  // namespace eb::agent
