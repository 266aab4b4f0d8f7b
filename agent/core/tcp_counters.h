#pragma once

// The host's TCP counters as evidence of one test (issue 29 item 6): the
// agent reads /proc/net/snmp and /proc/net/netstat before the workers
// start and after they are gone (agent/host/proc_net.h), and this parses
// the two tables and turns the readings into deltas. Each file holds
// pairs of lines, a header and its values:
//   Tcp: RtoAlgorithm RtoMin ... OutSegs RetransSegs InErrs ...
//   Tcp: 1 200 ... 41210 1204 0 ...
// Only the counters of spec::kTcpCounters are kept. Pure.

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::agent {

// The host's TCP counters at one instant, by "<table>:<field>".
struct TcpSnapshot {
  std::map<std::string, uint64_t> counters;
  // Why they could not be read or parsed; counters is empty then.
  std::string error;
};

// The counters of spec::kTcpCounters found in `text`, the content of the
// file `file` (named in errors). INVALID_ARGUMENT naming the file and the
// field when a wanted field's value is not a whole number from 0 to 2^63-1
// (garbage, a sign, overflow), or when a table's header and value lines do
// not pair up; a wanted field a kernel does not have is left out.
absl::StatusOr<std::map<std::string, uint64_t>> ParseTcpTables(absl::string_view text,
                                                               absl::string_view file);

// /proc/net/snmp's and /proc/net/netstat's counters together; the error of
// the first that fails. `netstat_text` may be empty (a kernel or a fake
// without it): its counters are then left out.
TcpSnapshot ParseTcpSnapshot(absl::string_view snmp_text, absl::string_view snmp_file,
                             absl::string_view netstat_text, absl::string_view netstat_file);

// The deltas from `before` to `after` for node `node`: one PortCounter per
// counter read at both instants, in spec::kTcpCounters order; a counter
// that went backwards (a reset, a 32-bit kernel's wrap) has delta 0 and
// reset set. An error at either instant is the evidence's error.
ebnccl::v1::TcpEvidence DiffTcp(const std::string& node, const TcpSnapshot& before,
                                const TcpSnapshot& after);

}  // namespace eb::agent
