#include "coordinator/validation/graded_size.h"

#include <algorithm>

namespace eb::validation {

int64_t PlateauBytes(std::vector<SizeBusbw> rows, double within) {
  if (rows.empty()) return 0;
  std::sort(rows.begin(), rows.end());
  const double top = rows.back().second;
  if (!(top > 0)) return 0;
  for (const auto& [bytes, busbw] : rows) {
    if (busbw >= (1 - within) * top) return bytes;
  }
  return rows.back().first;
}

int32_t IterationsFor(int64_t graded_bytes, const SizePolicy& policy) {
  if (policy.user_iterations || graded_bytes <= 0) return 0;
  const int64_t needed = (policy.min_bytes_per_rail + graded_bytes - 1) / graded_bytes;
  return static_cast<int32_t>(
      std::clamp<int64_t>(needed, policy.min_iterations, policy.max_iterations));
}

TestSize IntraTestSize(const SizePolicy& policy, int64_t figure_bytes) {
  if (policy.user_sweep) return {0, 0, IterationsFor(policy.user_max_bytes, policy)};
  TestSize size;
  size.max_bytes = std::max(policy.sweep_max_bytes, figure_bytes);
  size.min_bytes = std::min(policy.sweep_min_bytes, size.max_bytes);
  size.iterations = IterationsFor(size.max_bytes, policy);
  return size;
}

TestSize NetworkTestSize(const SizePolicy& policy, int64_t figure_bytes,
                         int64_t learned_plateau_bytes) {
  if (policy.user_sweep) return {0, 0, IterationsFor(policy.user_max_bytes, policy)};
  int64_t graded = policy.sweep_max_bytes;
  if (figure_bytes > 0) {
    graded = figure_bytes;
  } else if (learned_plateau_bytes > 0) {
    graded = learned_plateau_bytes;
  }
  return {graded, graded, IterationsFor(graded, policy)};
}

}  // namespace eb::validation
