#include "tests/bench/load_generator/simulated_progress.h"

#include <algorithm>
#include <cstdint>

namespace eb::bench {

ebnccl::v1::IterationProgress SimulatedProgress(int step, absl::Duration elapsed,
                                                absl::Duration size_time, int iterations,
                                                int check_iterations) {
  const int per_variant = 1 + iterations + check_iterations;
  const int planned = 2 * per_variant;
  const double share =
      size_time > absl::ZeroDuration() ? absl::FDivDuration(elapsed, size_time) : 1.0;
  const int done = std::clamp(static_cast<int>(share * planned), 0, planned - 1);
  // Each variant: one untimed call, the timed ones, then the check calls.
  const int in_variant = done < per_variant ? done : done - per_variant;
  const int timed = std::clamp(in_variant - 1, 0, iterations);
  const int64_t call_us = std::max<int64_t>(1, absl::ToInt64Microseconds(size_time) / planned);
  ebnccl::v1::IterationProgress progress;
  progress.set_step(step);
  progress.set_calls_done(done);
  progress.set_calls_planned(planned);
  progress.set_timed_calls(timed);
  progress.set_timed_elapsed_us(timed * call_us);
  progress.set_waiting_on_peers(true);
  return progress;
}

}  // namespace eb::bench
