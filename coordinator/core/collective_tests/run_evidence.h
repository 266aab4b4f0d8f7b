#pragma once

// The evidence the agents collect over a test (issue 12, parts 2, 3 and
// 5), merged into its report: HCA port counters, the ranks' last NCCL
// warnings and the NICs their NCCL used. Pure.

#include <string>

#include "ebnccl/v1/common.pb.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

// At most this much NCCL warning text per test, over every rank (each
// agent already keeps at most 20 lines and 4 KiB per rank).
inline constexpr size_t kMaxTestNcclWarningBytes = 64 * 1024;

// At most this much NCCL RAS status text per test, over every node (each
// agent keeps at most 16 KiB; every node's RAS describes the whole job, so
// the first replies say most of it).
inline constexpr size_t kMaxTestNcclRasBytes = 64 * 1024;
// What NCCL used (issue 29, item 4): the channel connections kept per rank
// and per test (about 100 bytes each); the rest are counted in
// RankNicUse.channels_dropped.
inline constexpr int kMaxRankNcclChannels = 128;
inline constexpr int kMaxTestNcclChannels = 8192;

// What one node's agent may send of its ports (an agent is untrusted
// input): ports, counters per port and refused files per port beyond these
// are dropped, a message longer than kMaxEvidenceTextBytes is cut. A node
// of 8 rails x 2 ports reads 16 ports of 28 counters.
inline constexpr int kMaxNodePorts = 64;
inline constexpr int kMaxPortCounters = 64;
inline constexpr int kMaxPortRefusals = 64;
inline constexpr size_t kMaxEvidenceTextBytes = 512;

// The HCA the node's inventory names closest to GPU `device_index`
// (GpuInfo.nearest_hca), or "".
std::string NearestHca(const ebnccl::v1::NodeInventory& inventory, int device_index);

// Appends what node `node`'s agent sent with WorkersStopped: its ports, its
// ranks' NCCL warnings (within kMaxTestNcclWarningBytes for the whole
// test; what does not fit is dropped, the rank marked truncated) and NIC
// use (each rank's expected HCA from the inventory, flagged when its NCCL
// used another), its TCP counters (only spec::kTcpCounters, each once;
// every delta and reset recomputed from before and after, as for its
// ports' counters: a port's counters are only those of spec::kPortErrorCounters
// and kPortOtherCounters, their error flags and grown_errors decided here),
// and its NCCL RAS status (its text dropped, with a note,
// past kMaxTestNcclRasBytes for the test). Entries naming a rank outside the test, or a rank of
// another node, are dropped.
void MergeNodeEvidence(const std::string& node, const ebnccl::v1::NodeTestEvidence& evidence,
                       ebnccl::v1::TestReport& report);

// When the test is over: copies each failing rank's NCCL warnings into its
// Failure, and returns what the ports say, for the summary ("" when there
// is nothing to say): the error counters that grew and the links that
// flapped, with "a slow rail with growing symbol errors is a cable"; or, for
// a test with a network verdict (a slow rail, too little bandwidth, a
// communication error, a timeout) while no error counter grew, that the
// cable is not the cause: look elsewhere.
std::string FinishEvidence(ebnccl::v1::TestReport& report);

}  // namespace eb::coordinator
