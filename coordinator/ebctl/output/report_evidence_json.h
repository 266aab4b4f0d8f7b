#pragma once

// The evidence sections of the --json test report (issue 12): what the
// agents read around the test (HCA port counters and links, the ranks'
// NCCL warnings, NCCL RAS) and the NICs each rank's NCCL used. ebnccl's
// own, not in nccl-tests' -J file. Pure functions, callable from any
// thread.

#include "ebnccl/v1/control.pb.h"
#include "nlohmann/json.hpp"

namespace eb::ebctl {

// port_counters[]: per node, HCA and port, the link at the start and end
// (null when the port could not be read), every counter's before, after
// and delta, the grown error counters and whether the link flapped.
nlohmann::json PortCountersToJson(const ebnccl::v1::TestReport& report);
// tcp_counters[]: per node, its TCP counters (/proc/net/snmp, netstat)
// before and after the test, by "<table>:<field>".
nlohmann::json TcpCountersToJson(const ebnccl::v1::TestReport& report);

// nccl_warnings[]: per rank, its last NCCL WARN lines.
nlohmann::json NcclWarningsToJson(const ebnccl::v1::TestReport& report);

// nccl_ras[]: per node, the NCCL RAS status text it read.
nlohmann::json NcclRasToJson(const ebnccl::v1::TestReport& report);

// nic_use[]: per rank, the NICs its NCCL used, the HCA nearest its GPU and
// whether it used another.
nlohmann::json NicUseToJson(const ebnccl::v1::TestReport& report);

}  // namespace eb::ebctl
