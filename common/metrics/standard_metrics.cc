#include "common/metrics/standard_metrics.h"

#include <memory>

#include "common/metrics/process_metrics.h"
#include "common/version/version.h"

namespace eb::common {

void AddStandardMetrics(MetricsRegistry& registry, const std::string& component) {
  registry
      .AddGauge("ebnccl_build_info", "The ebnccl build this daemon runs; always 1.",
                {"component", "version"})
      .Set({component, kVersion}, 1);
  registry.AddCollectable(std::make_unique<ProcessCollector>());
}

}  // namespace eb::common
