#pragma once

// What NCCL itself said in a worker's log (the worker's stderr, where NCCL
// writes with NCCL_DEBUG set): its last warnings, attached to a failed
// test's report (issue 12, part 5), and, with NCCL_DEBUG=INFO, the NICs its
// channels used (part 2). Pure: the agent reads the log (agent/host).

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace eb::agent {

// Bounds of what is kept of one rank's log (docs/DESIGN.md, "NCCL's own
// diagnosis"); a test's total is bounded again by the coordinator.
struct NcclWarningLimits {
  size_t max_lines = 20;
  size_t max_bytes = 4096;
  // A longer line is cut and ends in "...".
  size_t max_line_bytes = 512;
};

struct NcclWarnings {
  // The last "NCCL WARN" lines, oldest first.
  std::vector<std::string> lines;
  // Lines or bytes were dropped (or lines cut) to stay within the limits.
  bool truncated = false;
};

// The last lines of `log` that carry NCCL's " NCCL WARN " tag
// ("host:pid:tid [dev] file.cc:123 NCCL WARN ..."), within `limits`. The
// first line of `log` is skipped when `log` may start mid-line
// (`partial_first_line`: a tail of a longer file).
NcclWarnings ExtractNcclWarnings(absl::string_view log, const NcclWarningLimits& limits,
                                 bool partial_first_line = false);

// The NICs this rank's NCCL channels went through, sorted and distinct:
// "NET/IB : Using [0]mlx5_100:1/IB [1]mlx5_101:1/RoCE ..." lists the
// devices by index, and each "Channel ... via NET/IB/<index>[/GDRDMA]" line
// names one. Empty when the log has neither (NCCL_DEBUG below INFO, or no
// network transport used).
std::vector<std::string> ParseNicUse(absl::string_view log);

}  // namespace eb::agent
