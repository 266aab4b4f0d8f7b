#pragma once

// Turns every rank's measurement of one size into one table row the
// nccl-tests way: time averaged across ranks (-a 1), algbw/busbw from that
// average, wrong elements summed; plus what nccl-tests never prints: each
// rank's time, the fastest and slowest rank. TestSpec.average picks the
// row's time as nccl-tests -a does (rank 0, average, fastest, slowest); the
// row's collective is the ranks' (RankSizeResult.collective). Each variant
// also carries the time every check judges (judged_time.h), from the
// ranks' nodes. Pure.

#include <vector>

#include "ebnccl/v1/common.pb.h"

namespace eb::coordinator {

// `per_rank[r]` is rank r's result for the size (non-null, rank order);
// `node_of[r]` its node (0-based, dense; judged_time.h).
ebnccl::v1::SizeResult AggregateSize(const ebnccl::v1::TestSpec& spec,
                                     const std::vector<const ebnccl::v1::RankSizeResult*>& per_rank,
                                     const std::vector<int>& node_of);

}  // namespace eb::coordinator
