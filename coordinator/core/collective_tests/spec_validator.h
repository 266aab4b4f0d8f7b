#pragma once

// Validation of a TestSpec at the edge (ARCHITECTURE.md failure model: "bad
// request: a clear error naming the field; nothing started"). Pure: no I/O,
// no time.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/config.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::coordinator {

// Returns the spec with defaults filled in (float, sum, auto transport,
// deadlines from `config`) or INVALID_ARGUMENT whose message starts with the
// offending field, e.g. "max_bytes: 8 is smaller than min_bytes 64". Checks
// that need the placement (root_rank < world size, slots) happen later.
// This is the one computation and check of the sweep's sizes
// (transport::SweepSizes): when `sweep_sizes` is given, it receives them,
// so that the caller lays them out (LayOutSweep) instead of computing them
// again.
absl::StatusOr<ebnccl::v1::TestSpec> ValidateAndNormalize(
    const ebnccl::v1::TestSpec& spec, const CoordinatorConfig& config,
    std::vector<int64_t>* sweep_sizes = nullptr);

}  // namespace eb::coordinator
