#pragma once

// Hand-built reports shared by the ebctl output tests.

#include "ebnccl/v1/control.pb.h"

namespace eb::ebctl::testing {

// all_reduce of float/sum over two ranks on two nodes (gloo, CPU devices),
// sizes 8 and 128M, factor 2, one check iteration, min busbw 50 GB/s;
// FAILED: rank 1 exited with signal 9 (the failure), rank 1 slowest in 3 of
// the 4 measurements (stored in slowest_rank, as the coordinator does).
// Times 2026-11-29T15:45:01.123Z .. 15:46:00.000Z.
ebnccl::v1::TestReport TwoRankReport();

// Rank 1 of TwoRankReport's rank map, for failure fixtures.
ebnccl::v1::Failure RankOneExited();

}  // namespace eb::ebctl::testing
