#pragma once

// The host's TCP counters (agent/core/tcp_counters.h) as this process's
// network namespace counts them: <proc_net>/snmp and <proc_net>/netstat
// (normally /proc/net, which is the reading process's namespace's). Each
// file is read bounded (common/io/bounded_file.h).

#include <string>

#include "absl/strings/string_view.h"
#include "agent/core/tcp_counters.h"

namespace eb::agent {

inline constexpr absl::string_view kProcNet = "/proc/net";

// The counters now; TcpSnapshot.error names the file that could not be
// read or parsed. A missing netstat file leaves its counters out.
TcpSnapshot ReadTcpSnapshot(absl::string_view proc_net = kProcNet);

}  // namespace eb::agent
