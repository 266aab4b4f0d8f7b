#pragma once

// The coordinator's metrics (names, types and labels in docs/METRICS.md):
//
//   ebnccl_nodes{state="idle|busy|lost"}               gauge
//   ebnccl_node_heartbeat_age_seconds{node}            gauge
//   ebnccl_tests_running                               gauge
//   ebnccl_tests_total{verdict="passed|failed|timed_out|cancelled|interrupted"}  counter
//   ebnccl_test_busbw_bytes_per_second{node,collective} gauge
//
// Gauges that mirror state (nodes, heartbeat ages, running tests) are
// recomputed by Update(), which reads the executor-owned NodeRegistry and
// TestManager and so runs on the coordinator's executor, typically through
// RefreshOnExecutor at scrape time. Counters and the last bandwidth are
// events: OnTestFinished() is called once per test when it reaches its
// verdict (from TestManager::Finished).
//
// Thread-safety: the metric families are thread-safe; the methods here
// read executor-owned objects and must run on the coordinator's executor.

#include "common/metrics/metrics_registry.h"
#include "common/time/clock.h"
#include "coordinator/core/collective_test_manager.h"
#include "coordinator/core/node_registry.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

class CoordinatorMetrics {
 public:
  // Declares the families in `registry` (which must outlive this object)
  // and exports every verdict and node state at 0. `clock` measures
  // heartbeat ages (the registry's clock).
  CoordinatorMetrics(common::MetricsRegistry& registry, common::Clock& clock);

  CoordinatorMetrics(const CoordinatorMetrics&) = delete;
  CoordinatorMetrics& operator=(const CoordinatorMetrics&) = delete;

  // Recomputes ebnccl_nodes, ebnccl_node_heartbeat_age_seconds and
  // ebnccl_tests_running. Executor only.
  void Update(const NodeRegistry& nodes, const TestManager& tests);

  // Counts a test that reached a terminal state in ebnccl_tests_total and,
  // when it measured at least one size, sets ebnccl_test_busbw_bytes_per_second for each
  // of its nodes to the test's average bus bandwidth. Reports in other
  // states are ignored (and logged). Executor only.
  void OnTestFinished(const ebnccl::v1::TestReport& report);

 private:
  common::Clock& clock_;
  common::Gauge& nodes_;
  common::Gauge& heartbeat_age_;
  common::Gauge& tests_running_;
  common::Counter& tests_total_;
  common::Gauge& busbw_;
};

// The label value of a terminal state ("passed", "failed", "timed_out",
// "cancelled"), or null for a non-terminal one.
const char* VerdictLabel(ebnccl::v1::TestState state);
// "idle", "busy", "lost", or null.
const char* NodeStateLabel(ebnccl::v1::NodeState state);

}  // namespace eb::coordinator
