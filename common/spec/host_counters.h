#pragma once

// The host counters an agent reports over a test and the coordinator reads
// as evidence about the path (issue 29 item 6; docs/RELIABILITY.md,
// "Counters as evidence"): one list each, shared by both ends, so the
// coordinator keeps only what an agent of this build reads (an agent is
// untrusted input). Pure; any thread.

#include <string_view>

namespace eb::spec {

// /proc/net/snmp's "Tcp:" table and /proc/net/netstat's "TcpExt:", as
// "<table>:<field>". OutSegs counts the segments sent except those that
// only retransmit (Linux, TCP_MIB_OUTSEGS); RetransSegs the retransmitted
// ones; TCPTimeouts the retransmission timer's expiries (a loss no fast
// retransmit repaired), TCPLostRetransmit retransmissions lost again.
inline constexpr std::string_view kTcpOutSegs = "Tcp:OutSegs";
inline constexpr std::string_view kTcpRetransSegs = "Tcp:RetransSegs";
inline constexpr std::string_view kTcpCounters[] = {
    kTcpOutSegs,  kTcpRetransSegs,      "Tcp:InSegs",
    "Tcp:InErrs", "TcpExt:TCPTimeouts", "TcpExt:TCPLostRetransmit",
};

// Every HCA port counter an agent reads (counters/<name> or
// hw_counters/<name>), in the order a report lists them: the error
// counters (growth is flagged in PortEvidence.grown_errors), then the data,
// packet, wait and congestion counters. The coordinator keeps no other name
// and decides itself which are errors.
inline constexpr std::string_view kPortErrorCounters[] = {
    "symbol_error",
    "link_error_recovery",
    "link_downed",
    "port_rcv_errors",
    "port_rcv_remote_physical_errors",
    "port_rcv_switch_relay_errors",
    "port_xmit_discards",
    "port_xmit_constraint_errors",
    "port_rcv_constraint_errors",
    "local_link_integrity_errors",
    "excessive_buffer_overrun_errors",
    "VL15_dropped",
    // hw_counters (RoCE, mlx5): retransmissions and transport errors.
    "out_of_sequence",
    "packet_seq_err",
    "local_ack_timeout_err",
    "implied_nak_seq_err",
    "req_cqe_error",
    "resp_cqe_error",
    "rx_icrc_encapsulated",
};
inline constexpr std::string_view kPortOtherCounters[] = {
    "port_xmit_wait",    "port_xmit_data", "port_rcv_data",  "port_xmit_packets",
    "port_rcv_packets",  "np_cnp_sent",    "rp_cnp_handled", "np_ecn_marked_roce_packets",
    "rnr_nak_retry_err",
};

// Of those, the counters (counters/<name>, Documentation/ABI/stable/
// sysfs-class-infiniband) whose growth says the link itself is bad: bit
// errors on the wire, the link retraining or going down, packets received
// malformed or discarded for the port's own faults. Growth names the port
// as the part at fault.
inline constexpr std::string_view kLinkErrorCounters[] = {
    "symbol_error",
    "link_error_recovery",
    "link_downed",
    "port_rcv_errors",
    "port_rcv_remote_physical_errors",
    "local_link_integrity_errors",
    "excessive_buffer_overrun_errors",
    "port_xmit_discards",
};

// RoCE/IB transport retries of an HCA port (hw_counters/<name>, mlx5:
// Documentation/ABI/.../sysfs-class-infiniband and the mlx5 counters'
// documentation): packets lost or reordered somewhere on the path, which
// the HCA repaired by retransmitting. Growth is the path's, seen from this
// port, not proof that this port is at fault.
inline constexpr std::string_view kTransportRetryCounters[] = {
    "out_of_sequence",
    "packet_seq_err",
    "local_ack_timeout_err",
    "rnr_nak_retry_err",
};

// Whether `name` is in `list`.
template <size_t N>
constexpr bool Listed(const std::string_view (&list)[N], std::string_view name) {
  for (std::string_view entry : list) {
    if (entry == name) return true;
  }
  return false;
}

}  // namespace eb::spec
