#pragma once

// The coordinator's metrics of fleet validations (issue 33; names, types and
// labels in docs/METRICS.md):
//
//   ebnccl_validations_running                                gauge
//   ebnccl_validations_total{state="done|cancelled|timed_out|failed|interrupted"}  counter
//   ebnccl_validations_bad_total                              counter
//   ebnccl_validation_duration_seconds{state}                 histogram
//   ebnccl_validation_last_end_timestamp_seconds              gauge, absent before the first
//   per node, from the validation history (so it survives a restart):
//   ebnccl_node_validation_verdict{node,verdict}              gauge, 1 for its last verdict
//   ebnccl_node_validation_timestamp_seconds{node}            gauge, when that validation ended
//   ebnccl_node_bad_validations{node}                         gauge, validations that found it bad
//   ebnccl_node_repeat_offender{node}                         gauge, 1 from kRepeatOffenderBadCount
//
// The node gauges mirror the history and are replaced as a whole by
// Update() at scrape time; the validation families are events, counted by
// OnValidationFinished() when a validation ends.
//
// Thread-safety: the metric families are thread-safe; both methods run on
// the coordinator's executor (the history and ValidationManager are its).

#include <cstdint>
#include <map>
#include <string>

#include "common/metrics/metrics_registry.h"
#include "coordinator/history/validation_history.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

class ValidationMetrics {
 public:
  // Declares the families in `registry` (which must outlive this object)
  // and exports every validation state at 0.
  explicit ValidationMetrics(common::MetricsRegistry& registry);

  ValidationMetrics(const ValidationMetrics&) = delete;
  ValidationMetrics& operator=(const ValidationMetrics&) = delete;

  // Replaces the per-node families with `last_verdicts` (by node name, as
  // ValidationManager::LastVerdicts gives them), sets the running count, and
  // dates the last validation by the newer of the last one seen ending and
  // the newest verdict (so that it survives a restart). A node without a
  // verdict (UNSPECIFIED) is left out. Executor only.
  void Update(const std::map<std::string, NodeVerdictRecord>& last_verdicts, int running);

  // Counts a validation that ended (its state, whether it found anything
  // bad) and observes its duration. A report in a non-terminal state is
  // ignored (and logged). Executor only.
  void OnValidationFinished(const ebnccl::v1::ValidationReport& report);

 private:
  common::Gauge& running_;
  common::Counter& total_;
  common::Counter& bad_total_;
  common::Histogram& duration_;
  common::Gauge& last_end_;
  common::Gauge& node_verdict_;
  common::Gauge& node_timestamp_;
  common::Gauge& node_bad_;
  common::Gauge& node_repeat_offender_;
  // The latest end of a validation this process saw end (Unix ms).
  int64_t last_end_ms_ = 0;
};

}  // namespace eb::coordinator
