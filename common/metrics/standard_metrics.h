#pragma once

// What every ebnccl daemon exports besides its own metrics:
//
//   ebnccl_build_info{component, version} 1   gauge: which build runs where
//                                             (join it on `instance`)
//   process_*                                 ProcessCollector (process_metrics.h)

#include <string>

#include "common/metrics/metrics_registry.h"

namespace eb::common {

// Declares both in `registry`. `component`: "coordinator" or "agent".
void AddStandardMetrics(MetricsRegistry& registry, const std::string& component);

}  // namespace eb::common
