#pragma once

// The second, positive signal of "the path" (issue 29 item 6): the hosts'
// own counters over the test, read by each agent before the workers start
// and after they are gone (TestReport.port_counters, tcp_counters). Until
// these, a slow test whose ranks all arrived on time and ran was called
// "the path" only because nothing else was seen; the counters say which
// node's traffic was lost on the way, or which port's link is bad
// (docs/RELIABILITY.md, "Counters as evidence"). Pure: no I/O, no clock.

#include <string>
#include <vector>

#include "ebnccl/v1/control.pb.h"

namespace eb::validation {

// A node's TCP counters are a finding when it retransmitted at least this
// share of the segments it sent during the test: a healthy data-centre
// network loses well under 0.1 % (healthy netns runs: at most 0.04 %,
// RELIABILITY.md), 3 % of the data packets lost on a path gave the sender
// 2.5-3.5 %.
// 1 % is 25 times the healthy ceiling and a third of the smallest loss
// the chaos cases make.
inline constexpr double kMinRetransmitShare = 0.01;
// ... over at least this many segments sent, and this many retransmitted:
// below them a share is a handful of the control connection's packets.
inline constexpr uint64_t kMinTcpSegments = 1000;
inline constexpr uint64_t kMinRetransmits = 20;

// What the counters say, worst first: every port whose link error counters
// grew (link_errors set: that port is at fault), then every port whose
// transport retries grew and every node over the TCP floor (packets lost
// on the path from that node). Empty when nothing moved, or nothing was
// read.
std::vector<ebnccl::v1::CounterFinding> JudgePathCounters(const ebnccl::v1::TestReport& report);

// One line for the culprit's reason: "node2 retransmitted 2.9% of its
// 41,210 TCP segments during the test (node1 0.0%)" for the first finding
// (the caller says how many more). For no finding: what was read and saw nothing
// ("the hosts' counters saw no loss: TCP retransmissions under 1% on
// node1, node2"), or "" when nothing was read.
std::string DescribePathCounters(const ebnccl::v1::TestReport& report,
                                 const std::vector<ebnccl::v1::CounterFinding>& findings);

// "1,204": a count as the reasons write it.
std::string GroupedCount(uint64_t value);

}  // namespace eb::validation
