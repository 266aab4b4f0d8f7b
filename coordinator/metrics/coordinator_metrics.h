#pragma once

// The coordinator's metrics (names, types and labels in docs/METRICS.md):
//
//   ebnccl_nodes{state="idle|busy|lost"}               gauge
//   ebnccl_node_heartbeat_age_seconds{node}            gauge
//   ebnccl_tests_running                               gauge
//   ebnccl_tests_total{verdict="passed|failed|timed_out|cancelled|interrupted"}  counter
//   ebnccl_test_duration_seconds{collective}           histogram
//   per node, collective and size class of the last test that covered them:
//   ebnccl_test_last_verdict{node,collective,size_class,verdict}     gauge, 1 for its verdict
//   ebnccl_test_last_timestamp_seconds{node,collective,size_class}   gauge, when it ended
//   ebnccl_test_busbw_bytes_per_second{node,collective,size_class}   gauge, its busbw
//
// A size class ("small", "medium", "large": SizeClassLabel) keeps an 8-byte
// latency test from overwriting the bandwidth of an 8 GB one. The busbw
// series is removed when the last test measured nothing, so that a failed
// test never leaves an earlier healthy figure behind.
//
// Gauges that mirror state (nodes, heartbeat ages, running tests) are
// recomputed by Update(), which reads the executor-owned NodeRegistry and
// TestManager and so runs on the coordinator's executor, typically through
// RefreshOnExecutor at scrape time. The rest are events: OnTestFinished()
// is called once per test when it reaches its verdict (from
// TestManager::Finished).
//
// Thread-safety: the metric families are thread-safe; the methods here
// read executor-owned objects and must run on the coordinator's executor.

#include <optional>
#include <string>

#include "common/metrics/metrics_registry.h"
#include "common/time/clock.h"
#include "coordinator/core/collective_tests/collective_test_manager.h"
#include "coordinator/core/nodes/node_registry.h"
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

  // Counts a test that reached a terminal state in ebnccl_tests_total,
  // observes its duration, and for each of its nodes sets the last verdict
  // and timestamp of its collective and size class, and the busbw (the
  // test's average bus bandwidth) when it measured at least one size, else
  // removes it. Reports in other states are ignored (and logged). Executor
  // only.
  void OnTestFinished(const ebnccl::v1::TestReport& report);

 private:
  common::Clock& clock_;
  common::Gauge& nodes_;
  common::Gauge& heartbeat_age_;
  common::Gauge& tests_running_;
  common::Counter& tests_total_;
  common::Histogram& duration_;
  common::Gauge& last_verdict_;
  common::Gauge& last_timestamp_;
  common::Gauge& busbw_;
};

// The size class of a test, from the largest size it measured (else the
// largest it asked for): "small" below 1 MiB (latency-bound), "medium"
// below 256 MiB, "large" from 256 MiB (bandwidth-bound: the class to alert
// on).
const char* SizeClassLabel(const ebnccl::v1::TestReport& report);

// The label value of a terminal state ("passed", "failed", "timed_out",
// "cancelled", "interrupted": its spec::WireName), or none for a
// non-terminal one.
std::optional<std::string> VerdictLabel(ebnccl::v1::TestState state);
// "idle", "busy", "lost", or none.
std::optional<std::string> NodeStateLabel(ebnccl::v1::NodeState state);

}  // namespace eb::coordinator
