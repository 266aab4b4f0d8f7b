#pragma once

// nccl-tests' `-I` objects (`out_of_place_per_iter`, `in_place_per_iter`)
// from the per-rank per-iteration times a variant carries
// (VariantResult.rank_iterations): the per-iteration maximum over ranks,
// its statistics and, with more than one rank, every rank's row
// (`per_process_max_times_us`: ebnccl runs one rank per process). Pure.

#include "ebnccl/v1/common.pb.h"
#include "nlohmann/json.hpp"

namespace eb::ebctl {

// Statistics of one series of times, as nccl-tests computes them
// (util.cu computeIterStats): sorted, p50 = sorted[n/2], pXX =
// sorted[min(n-1, ceil(n*XX/100)-1)], stdev over n (not n-1).
struct IterStats {
  double min = 0, max = 0, avg = 0, p50 = 0, p95 = 0, p99 = 0, stdev = 0;
};
IterStats ComputeIterStats(std::vector<double> times);

// The `*_per_iter` object of `variant`, or null when it has no
// per-iteration times (no -I, or a rank without them).
nlohmann::json PerIterToJson(const ebnccl::v1::VariantResult& variant);

}  // namespace eb::ebctl
