#pragma once

// What a simulated rank reports (WORKER_EVENT_KIND_PROGRESS) partway through
// a size, as agent/worker's ProgressBoard fills it: calls completed at an
// even pace over the size, the timed ones of the variant being timed with
// their time, the rank waiting on its peers. Pure.

#include "absl/time/time.h"
#include "ebnccl/v1/agent.pb.h"

namespace eb::bench {

// Size `step` (the sizes reported before it) lasting `size_time`,
// `elapsed` into it, of a sweep with `iterations` timed and
// `check_iterations` check calls a variant: 2 x (1 + iterations +
// check_iterations) calls in all, the size's last call only at its end.
ebnccl::v1::IterationProgress SimulatedProgress(int step, absl::Duration elapsed,
                                                absl::Duration size_time, int iterations,
                                                int check_iterations);

}  // namespace eb::bench
