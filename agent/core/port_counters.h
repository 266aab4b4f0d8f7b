#pragma once

// HCA port counters as evidence of one test (issue 12, part 3): the agent
// reads every configured port before the test starts and after its workers
// are gone (agent/host/infiniband_sysfs.h, ReadPortSnapshots), and this
// turns the two readings into deltas, the error counters that grew and
// whether the link flapped. Pure.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::agent {

// One port at one instant.
struct PortSnapshot {
  std::string hca;
  int port = 0;
  ebnccl::v1::PortLinkState link;
  // counters/<name> and hw_counters/<name> (kPortCounters only).
  std::map<std::string, uint64_t> counters;
  // Counter files that held no count, one message each naming the file.
  std::vector<std::string> refused;
  // Why the port could not be read; the rest is empty then.
  std::string error;
};

// A counter file's content (one line, surrounding whitespace stripped) as
// a count, through the house's parser (spec::ParseCount): INVALID_ARGUMENT
// naming `file` for garbage, a sign, a fraction, or a value over 2^63-1.
absl::StatusOr<uint64_t> ParseCounterValue(absl::string_view text, absl::string_view file);

// The counters read, by file name: the IB error counters, the data and
// packet counters and port_xmit_wait (counters/), and RoCE's retransmission
// and congestion counters (hw_counters/). Others are not read, which keeps
// a report bounded.
const std::vector<std::string>& PortCounterNames();

// Whether growth of this counter is an error (symbol_error, link_downed,
// port_rcv_errors, ...); data, packet, wait and congestion counters are not.
bool IsErrorCounter(const std::string& name);

// One PortEvidence per port of `after` (a port missing from `before` is
// reported with after's reading and no deltas), for node `node`. A
// counter that went backwards (reset, wrapped) has delta 0 and reset set;
// the files refused at either reading are listed (refused_counters).
std::vector<ebnccl::v1::PortEvidence> DiffPorts(const std::string& node,
                                                const std::vector<PortSnapshot>& before,
                                                const std::vector<PortSnapshot>& after);

}  // namespace eb::agent
