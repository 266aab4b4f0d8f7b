// sentinel_sim: the table of docs/BENCHMARKS.md section 12 (the sentinel,
// simulated): coverage against overhead for a few policies and
// utilisations over a simulated 1,024-node fleet (sentinel_sim.h).
// Deterministic for a seed.
//
//   build/bin/sentinel_sim [--seed 1] [--days 2]

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tests/unit/scheduler/sentinel_sim.h"

namespace {

using eb::scheduler::sim::RunSentinelSim;
using eb::scheduler::sim::SimConfig;
using eb::scheduler::sim::SimResult;

struct Row {
  double utilisation;
  double refresh_hours;
  int probe_seconds;
  double share;
  double job_cap_hours = 48;
};

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = 1;
  int days = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--seed") == 0) {
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (std::strcmp(argv[i], "--days") == 0) {
      days = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "usage: sentinel_sim [--seed N] [--days N]\n");
      return 2;
    }
  }
  const std::vector<Row> rows = {
      // The default policy, three utilisations.
      {0.85, 20, 60, 0.10},
      {0.90, 20, 60, 0.10},
      {0.95, 20, 60, 0.10},
      // Refresh earlier or later.
      {0.90, 12, 60, 0.10},
      {0.90, 16, 60, 0.10},
      {0.90, 23, 60, 0.10},
      // Longer or shorter probes.
      {0.90, 20, 30, 0.10},
      {0.90, 20, 120, 0.10},
      {0.90, 20, 300, 0.10},
      // A smaller share of the idle nodes (at 95 %, 2 % of ~51 idle nodes
      // rounds down to one node: no pair ever fits).
      {0.90, 20, 60, 0.02},
      {0.95, 20, 60, 0.02},
      // A partition whose jobs end within 24 h (MaxTime=24:00:00).
      {0.90, 20, 60, 0.10, 24},
      {0.90, 12, 60, 0.10, 24},
  };
  std::printf(
      "| utilisation | job limit | refresh_after | probe | max idle share | coverage (all) | "
      "coverage when "
      "idle | lost to yields | planner misses | overhead (GPU-h) | probes / day | preempted | "
      "oldest evidence | held at "
      "most | idle nodes (mean) |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Row& row : rows) {
    SimConfig config;
    config.seed = seed;
    config.measured = absl::Hours(24 * days);
    config.workload.utilisation = row.utilisation;
    config.policy.refresh_after = absl::Hours(row.refresh_hours);
    config.policy.probe_duration = absl::Seconds(row.probe_seconds);
    config.policy.max_idle_share = row.share;
    config.workload.job_cap = absl::Hours(row.job_cap_hours);
    const absl::StatusOr<SimResult> result = RunSentinelSim(config);
    if (!result.ok()) {
      std::fprintf(stderr, "sentinel_sim: %s\n", std::string(result.status().message()).c_str());
      return 1;
    }
    std::printf(
        "| %.0f %% (measured %.1f %%) | %.0f h | %.0f h | %d s | %.0f %% | %.2f %% | %.4f %% | "
        "%lld | %lld | %.3f %% "
        "| %.0f | %.1f %% | %.1f h | %d | %.0f |\n",
        row.utilisation * 100, result->utilisation * 100, row.job_cap_hours, row.refresh_hours,
        row.probe_seconds, row.share * 100, result->coverage * 100,
        result->coverage_when_idle * 100, static_cast<long long>(result->lost_to_yields),
        static_cast<long long>(result->misses), result->overhead * 100,
        static_cast<double>(result->probes) / days,
        result->probes
            ? 100.0 * static_cast<double>(result->preempted) / static_cast<double>(result->probes)
            : 0.0,
        result->max_age_hours, result->max_held, result->mean_idle_nodes);
    std::fflush(stdout);
  }
  return 0;
}
