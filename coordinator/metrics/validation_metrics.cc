#include "coordinator/metrics/validation_metrics.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/spec/validation_states.h"
#include "common/spec/verdicts.h"
#include "common/spec/wire_names.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;
namespace {

// ebnccl_node_validation_verdict's state set.
constexpr v1::Verdict kNodeVerdicts[] = {v1::VERDICT_HEALTHY, v1::VERDICT_DEGRADED,
                                         v1::VERDICT_FAILED, v1::VERDICT_UNFIT,
                                         v1::VERDICT_UNTESTABLE};

// The states a validation ends in (their rows say terminal), exported from
// the start at 0.
std::optional<std::string> EndStateLabel(v1::ValidationState state) {
  if (!spec::RowOf(state).terminal) return std::nullopt;
  return spec::WireName(state);
}

}  // namespace

ValidationMetrics::ValidationMetrics(common::MetricsRegistry& registry)
    : running_(registry.AddGauge("ebnccl_validations_running", "Fleet validations running.")),
      total_(registry.AddCounter("ebnccl_validations_total",
                                 "Fleet validations ended since the coordinator started, by "
                                 "final state.",
                                 {"state"})),
      bad_total_(registry.AddCounter(
          "ebnccl_validations_bad_total",
          "Fleet validations ended that found a node, path or rail degraded or failed, or a bad "
          "fleet finding (ebctl validate exits 7).")),
      // A two-node validation takes minutes; a fleet with a soak, hours.
      duration_(registry.AddHistogram(
          "ebnccl_validation_duration_seconds",
          "Wall time of ended fleet validations, from start to end, by final state.", {"state"},
          {30, 60, 300, 600, 1800, 3600, 7200, 14400, 21600, 43200})),
      last_end_(registry.AddGauge("ebnccl_validation_last_end_timestamp_seconds",
                                  "Unix time the last fleet validation ended.")),
      node_verdict_(registry.AddGauge("ebnccl_node_validation_verdict",
                                      "1 for the verdict the last finished validation gave the "
                                      "node, 0 for the others.",
                                      {"node", "verdict"})),
      node_timestamp_(registry.AddGauge(
          "ebnccl_node_validation_timestamp_seconds",
          "Unix time the last finished validation that judged the node ended.", {"node"})),
      node_bad_(registry.AddGauge("ebnccl_node_bad_validations",
                                  "Finished validations that found the node degraded or failed.",
                                  {"node"})),
      node_repeat_offender_(registry.AddGauge(
          "ebnccl_node_repeat_offender",
          absl::StrCat("1 when at least ", spec::kRepeatOffenderBadCount,
                       " finished validations found the node degraded or failed."),
          {"node"})) {
  const google::protobuf::EnumDescriptor& states = *v1::ValidationState_descriptor();
  for (int i = 0; i < states.value_count(); ++i) {
    const auto state = static_cast<v1::ValidationState>(states.value(i)->number());
    if (std::optional<std::string> label = EndStateLabel(state)) total_.Initialize({*label});
  }
  // Absent, not 0 (the epoch), until a validation is known to have ended:
  // "time() - it" must not read as 56 years without one.
  last_end_.Remove({});
}

void ValidationMetrics::Update(const std::map<std::string, NodeVerdictRecord>& last_verdicts,
                               int running) {
  std::map<common::LabelValues, double> verdicts;
  std::map<common::LabelValues, double> timestamps;
  std::map<common::LabelValues, double> bad;
  std::map<common::LabelValues, double> offenders;
  // The history's newest verdicts date the last validation across a
  // restart of the coordinator; one that ended without verdicts since
  // (cancelled early) is last_end_ms_.
  int64_t newest_end_ms = last_end_ms_;
  for (const auto& [node, record] : last_verdicts) {
    if (record.verdict == v1::VERDICT_UNSPECIFIED) continue;
    for (v1::Verdict verdict : kNodeVerdicts) {
      verdicts[{node, spec::WireName(verdict)}] = verdict == record.verdict ? 1 : 0;
    }
    timestamps[{node}] = static_cast<double>(record.time_unix_ms) / 1000.0;
    bad[{node}] = record.bad_count;
    offenders[{node}] = spec::IsRepeatOffender(record.bad_count) ? 1 : 0;
    newest_end_ms = std::max(newest_end_ms, record.time_unix_ms);
  }
  node_verdict_.ReplaceAll(std::move(verdicts));
  node_timestamp_.ReplaceAll(std::move(timestamps));
  node_bad_.ReplaceAll(std::move(bad));
  node_repeat_offender_.ReplaceAll(std::move(offenders));
  running_.Set(running);
  if (newest_end_ms > 0) last_end_.Set(static_cast<double>(newest_end_ms) / 1000.0);
}

void ValidationMetrics::OnValidationFinished(const v1::ValidationReport& report) {
  const std::optional<std::string> state = EndStateLabel(report.state());
  if (!state.has_value()) {
    spdlog::warn("validation={} metrics: OnValidationFinished in non-terminal state {}; ignored",
                 report.validation_id(), v1::ValidationState_Name(report.state()));
    return;
  }
  total_.Increment({*state});
  if (report.any_bad()) bad_total_.Increment();
  if (report.start_time_unix_ms() > 0 && report.end_time_unix_ms() >= report.start_time_unix_ms()) {
    duration_.Observe(
        {*state},
        static_cast<double>(report.end_time_unix_ms() - report.start_time_unix_ms()) / 1000.0);
  }
  if (report.end_time_unix_ms() > last_end_ms_) {
    last_end_ms_ = report.end_time_unix_ms();
    last_end_.Set(static_cast<double>(last_end_ms_) / 1000.0);
  }
}

}  // namespace eb::coordinator
