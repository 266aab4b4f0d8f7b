#pragma once

// The sweep of one test, computed once when the coordinator accepts it: the
// sizes every rank runs (sent to the agents in LaunchTest.sizes_bytes) and,
// for each, the size and count a rank must report for it (nccl-tests'
// printed columns, collective_layout.h). The TestRun checks every report
// against it, so that a worker that ran anything else (an eb-worker of
// another version computing its own sweep) fails the test instead of
// having its numbers mixed into a row. Pure.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::coordinator {

struct PlannedSize {
  // The size run (an entry of LaunchTest.sizes_bytes).
  int64_t sweep_bytes = 0;
  // What a rank must report for it: RankSizeResult.size_bytes (the larger of
  // send and receive bytes) and RankSizeResult.count.
  int64_t size_bytes = 0;
  int64_t count = 0;
  // The collective of this step (TestSpec.collectives run one after the
  // other, each over the same sizes).
  ebnccl::v1::Collective collective = ebnccl::v1::COLLECTIVE_UNSPECIFIED;
};

// The collectives of a spec in run order: TestSpec.collectives, or the one
// TestSpec.collective.
std::vector<ebnccl::v1::Collective> SpecCollectives(const ebnccl::v1::TestSpec& spec);

// The sweep of a normalized `spec` (transport::SweepSizes over min_bytes,
// max_bytes, step_factor, step_bytes) over `world_size` ranks, in order:
// every size of the first collective, then every size of the next, ...
// (LaunchTest.sizes_bytes is one collective's sizes).
// INVALID_ARGUMENT naming the field for a sweep SweepSizes refuses, an
// unset collective or data type, or world_size < 1.
absl::StatusOr<std::vector<PlannedSize>> PlanSweep(const ebnccl::v1::TestSpec& spec,
                                                   int world_size);

}  // namespace eb::coordinator
