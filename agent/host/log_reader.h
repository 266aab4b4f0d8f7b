#pragma once

// Reads the end of a rank's log for `ebctl logs` (FetchLog).

#include <string>

#include "ebnccl/v1/agent.pb.h"

namespace eb::agent {

// The last `max_bytes` of the file at `path` into a LogContent (error set
// when it cannot be read).
ebnccl::v1::LogContent ReadLogTail(const std::string& path, int64_t max_bytes);

}  // namespace eb::agent
