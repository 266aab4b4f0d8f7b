#pragma once

// Reads one page of a rank's log for `ebctl logs` (FetchLog). The request
// comes from the network and the agent runs as root: only a regular file
// inside the agent's run directory is read (its real path is checked, the
// last component is opened with O_NOFOLLOW, a FIFO or device is refused),
// and one answer holds at most the page asked for.

#include <cstdint>
#include <string>

#include "ebnccl/v1/agent.pb.h"

namespace eb::agent {

// At most `max_bytes` of the file at `path`: from byte `offset`, or the last
// `max_bytes` when `offset` is negative. Sets content, path, offset,
// next_offset (just after content), size and truncated (content is not the
// whole log); error instead when the file cannot be read or lies outside
// `run_dir`. The caller bounds max_bytes (launch_check.h, CheckFetchLog).
ebnccl::v1::LogContent ReadLogPage(const std::string& run_dir, const std::string& path,
                                   int64_t offset, int64_t max_bytes);

}  // namespace eb::agent
