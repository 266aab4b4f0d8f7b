#pragma once

// What NCCL really used, checked against the configuration (issue 29, item
// 4; docs/DESIGN.md, "What NCCL really used"). The agents parse each rank's
// NCCL INFO lines into TestReport.nic_use (agent/core/nccl_use.h); here,
// once every node's evidence is in, each rank is compared with its node's
// configuration (the inventory's HCAs and the GPU's rail HCA) and with the
// test's majority, and every mismatch is a named finding that fails the
// test (FAILURE_KIND_UNEXPECTED_PATH, exit 7) however good its bandwidth.
// A rank whose log had no INFO lines is unknown: never a finding. Pure.

#include <string>
#include <vector>

#include "absl/types/span.h"
#include "coordinator/core/collective_tests/run_results.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

// Fills `use`'s intra_transports from its channels: the transports to peers
// of its own node (report.ranks names the nodes). MergeNodeEvidence calls it
// before it bounds the channels; JudgeNcclPaths again for every entry that
// kept all of them.
void ClassifyIntraNode(const ebnccl::v1::TestReport& report, ebnccl::v1::RankNicUse& use);

// The findings of each rank, by rank, in rank order; empty when none.
// Comparisons (each only where both sides are known):
//  - HCAs configured on the node: the network transport must not be
//    "Socket", every NIC of a network channel must be a configured HCA and,
//    where the GPU has a rail HCA (GpuInfo.nearest_hca), that one; NCCL's
//    list of IB devices must hold every configured HCA.
//  - the test's majority (the most common value; a tie has none): network
//    transport, GDR on, a channel count no lower, the same transports to
//    the node's own peers.
std::vector<std::pair<int, std::vector<std::string>>> FindPathMismatches(
    const ebnccl::v1::TestReport& report);

// The run check (kRunChecks): stores the findings in nic_use[].findings and
// appends one UNEXPECTED_PATH failure per rank that has any.
void JudgeNcclPaths(absl::Span<const RankResults> ranks, ebnccl::v1::TestReport& report);

}  // namespace eb::coordinator
