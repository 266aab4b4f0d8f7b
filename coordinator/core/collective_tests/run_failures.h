#pragma once

// The failures of one test: attributed to rank, node, slot and GPU from its
// rank map, and ordered so that the likeliest root cause leads
// (docs/DESIGN.md, "Failure detection and attribution"). Pure.

#include <string>

#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

// A failure of `rank` (an index into report.ranks()), with its node, slot
// and GPU.
ebnccl::v1::Failure RankFailure(const ebnccl::v1::TestReport& report, int rank,
                                ebnccl::v1::FailureKind kind, const std::string& message);

// A failure that blames no rank (rank, slot and GPU -1), naming `node` when
// it is about one.
ebnccl::v1::Failure UnattributedFailure(ebnccl::v1::FailureKind kind, const std::string& message,
                                        const std::string& node = "");

// "rank 3 (node b, slot 1, GPU 1)"; without the GPU on Gloo.
std::string DescribeRank(const ebnccl::v1::TestReport& report, int rank);

// Sorts report.failures() so that the failure most likely to be the root
// cause comes first (a lost node, then a worker that exited or hung, then
// launch and timeouts, communication errors, wrong data, low bandwidth); a
// stable sort, so that ties keep the order they were found in.
void OrderFailuresByCause(ebnccl::v1::TestReport& report);

}  // namespace eb::coordinator
