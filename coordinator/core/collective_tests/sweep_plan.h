#pragma once

// The sweep of one test, computed once when the coordinator accepts it: the
// sizes every rank runs (sent to the agents in LaunchTest.sizes_bytes) and,
// for each, the size and count a rank must report for it (nccl-tests'
// printed columns, collective_layout.h). The TestRun checks every report
// against it, so that a worker that ran anything else (an eb-worker of
// another version computing its own sweep) fails the test instead of
// having its numbers mixed into a row. Pure.
//
// The sizes are computed and checked once, by ValidateAndNormalize (which
// hands them on); LayOutSweep turns them into the steps of one world, the
// test's and, with split_rails, a rail's.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
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

// The steps of a normalized `spec` over `world_size` ranks for the sweep
// `sizes_bytes` (transport::SweepSizes of the spec, as ValidateAndNormalize
// computed and checked them), in order: every size of the first
// collective, then every size of the next, ... INVALID_ARGUMENT for an
// unset collective or data type, or world_size < 1.
absl::StatusOr<std::vector<PlannedSize>> LayOutSweep(const ebnccl::v1::TestSpec& spec,
                                                     absl::Span<const int64_t> sizes_bytes,
                                                     int world_size);

// SweepSizes over the spec's min_bytes, max_bytes, step_factor and
// step_bytes, then LayOutSweep: the sweep of a spec whose sizes nobody
// computed yet. INVALID_ARGUMENT naming the field for a sweep SweepSizes
// refuses, and as LayOutSweep.
absl::StatusOr<std::vector<PlannedSize>> PlanSweep(const ebnccl::v1::TestSpec& spec,
                                                   int world_size);

// The sizes of the first collective of `steps` (every collective runs the
// same sizes): LaunchTest.sizes_bytes.
std::vector<int64_t> SweepBytes(absl::Span<const PlannedSize> steps);

// The sweep a TestRun holds its ranks to: the test's steps, then, with
// split_rails, the same sizes over a rail's world (one rank per node),
// whose sizes and counts differ for collectives whose layout depends on the
// world size.
struct TestSweep {
  std::vector<PlannedSize> steps;
  std::vector<PlannedSize> rail_steps;

  // Steps every rank reports: the sweep, then its rail's.
  size_t size() const { return steps.size() + rail_steps.size(); }
  // Step `index` of size() for a message: "size 4096", with several
  // collectives "broadcast size 4096", "rail size 4096"; "finishing" past
  // the last.
  std::string StepName(size_t index) const;
};

}  // namespace eb::coordinator
