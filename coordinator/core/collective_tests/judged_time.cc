#include "coordinator/core/collective_tests/judged_time.h"

#include <algorithm>

namespace eb::coordinator {

std::vector<double> NodeMedianTimes(absl::Span<const double> times_us,
                                    absl::Span<const int> node_of) {
  int nodes = 0;
  for (const int node : node_of) nodes = std::max(nodes, node + 1);
  std::vector<std::vector<double>> per_node(static_cast<size_t>(nodes));
  for (size_t i = 0; i < times_us.size() && i < node_of.size(); ++i) {
    if (node_of[i] >= 0) per_node[static_cast<size_t>(node_of[i])].push_back(times_us[i]);
  }
  std::vector<double> medians(per_node.size(), 0.0);
  for (size_t node = 0; node < per_node.size(); ++node) {
    std::vector<double>& times = per_node[node];
    if (times.empty()) continue;
    std::sort(times.begin(), times.end());
    const size_t middle = times.size() / 2;
    medians[node] =
        times.size() % 2 == 1 ? times[middle] : (times[middle - 1] + times[middle]) / 2.0;
  }
  return medians;
}

double JudgedTimeUs(double shown_time_us, absl::Span<const double> times_us,
                    absl::Span<const int> node_of) {
  const std::vector<double> medians = NodeMedianTimes(times_us, node_of);
  double judged = shown_time_us;
  for (const double median : medians) judged = std::max(judged, median);
  return judged;
}

}  // namespace eb::coordinator
