#pragma once

// A simulated fleet for the sentinel planner (issue 30, part 3): N nodes
// whose tenants come and go, the planner (coordinator/scheduler/
// sentinel_planner.h) called once a tick as the scheduler service will,
// probes that pass after their duration unless a tenant job wants one of
// the pair first (then the probe yields, is recorded `preempted`, and
// gives no evidence). Measures coverage (share of (node, rail) whose
// evidence is at most one period old) against overhead (GPU-hours held by
// probes, yields included, over the fleet's GPU-hours). Deterministic for
// a seed. The table of docs/BENCHMARKS.md section 12 (sentinel_sim) and
// sentinel_sim_test.
//
// The tenants' model (each node on its own: a simplification, multi-node
// jobs would free nodes together and make pairs easier to find): a node
// alternates between a job and an idle gap. Job lengths are log-normal
// (median job_median, sigma job_sigma: a heavy tail, p99 ~ 30x the
// median), cut at the partition's time limit job_cap; idle gaps are
// exponential with the mean that gives the utilisation asked for. Each
// node starts at a random point of its own cycle, and with every rail last
// judged (healthy) a uniform time in [0, refresh_after) ago.

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "coordinator/scheduler/sentinel_planner.h"

namespace eb::scheduler::sim {

struct Workload {
  double utilisation = 0.90;  // share of node-time in tenant jobs
  absl::Duration job_median = absl::Hours(2);
  double job_sigma = 1.5;
  absl::Duration job_cap = absl::Hours(48);  // the partition's MaxTime
};

struct SimConfig {
  int nodes = 1024;
  int rails = 8;
  int gpus_per_node = 8;
  absl::Duration warmup = absl::Hours(24);    // not measured
  absl::Duration measured = absl::Hours(48);  // measured after the warm-up
  // How often the service reads the scheduler and calls the planner.
  absl::Duration tick = absl::Minutes(1);
  absl::Duration sample_every = absl::Minutes(10);
  // From the borrow's submission to the probe's start (sbatch, the job
  // running, the agents' workers up), held on both nodes.
  absl::Duration borrow_latency = absl::Seconds(5);
  // How long a tenant job waits for a probe to yield (issue 30: <= 5 s).
  absl::Duration yield = absl::Seconds(5);
  uint64_t seed = 1;
  Workload workload;
  SentinelPolicy policy;
};

struct SimResult {
  // Samples of (node, rail) in the measured window whose evidence was at
  // most policy.period old, over all samples.
  double coverage = 0;
  // The same, leaving out the samples of nodes never idle long enough
  // (a tick, the borrow and a whole probe in one idle gap) since they fell
  // due: coverage "when idle time allows". The samples it counts as not
  // covered are either lost to yields (every such gap had a probe of the
  // node, and each yielded to a tenant job that wanted it or its partner)
  // or misses: a gap with no probe, the planner's own failure.
  double coverage_when_idle = 0;
  int64_t lost_to_yields = 0;
  int64_t misses = 0;
  // Probe GPU-hours (borrow latency, probe, yield; both nodes) over the
  // fleet's GPU-hours, in the measured window.
  double overhead = 0;
  int64_t probes = 0;          // started in the measured window
  int64_t preempted = 0;       // of them, yielded to a tenant job
  double max_age_hours = 0;    // the oldest evidence sampled
  double utilisation = 0;      // tenant node-time measured, over the fleet's
  int max_held = 0;            // nodes held by probes at once, at most
  double mean_idle_nodes = 0;  // at the ticks
};

// INVALID_ARGUMENT for a configuration out of range (the planner's policy
// included).
absl::StatusOr<SimResult> RunSentinelSim(const SimConfig& config);

}  // namespace eb::scheduler::sim
