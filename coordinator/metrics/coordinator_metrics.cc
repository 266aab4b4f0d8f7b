#include "coordinator/metrics/coordinator_metrics.h"

#include <map>
#include <string>

#include "common/spec/proto_enums.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

const char* VerdictLabel(v1::TestState state) {
  switch (state) {
    case v1::TEST_STATE_PASSED:
      return "passed";
    case v1::TEST_STATE_FAILED:
      return "failed";
    case v1::TEST_STATE_TIMED_OUT:
      return "timed_out";
    case v1::TEST_STATE_CANCELLED:
      return "cancelled";
    case v1::TEST_STATE_INTERRUPTED:
      return "interrupted";
    default:
      return nullptr;
  }
}

const char* NodeStateLabel(v1::NodeState state) {
  switch (state) {
    case v1::NODE_STATE_IDLE:
      return "idle";
    case v1::NODE_STATE_BUSY:
      return "busy";
    case v1::NODE_STATE_LOST:
      return "lost";
    default:
      return nullptr;
  }
}

CoordinatorMetrics::CoordinatorMetrics(common::MetricsRegistry& registry, common::Clock& clock)
    : clock_(clock),
      nodes_(registry.AddGauge("ebnccl_nodes", "Registered nodes by liveness state.", {"state"})),
      heartbeat_age_(registry.AddGauge("ebnccl_node_heartbeat_age_seconds",
                                       "Seconds since the node's agent last heartbeated.",
                                       {"node"})),
      tests_running_(
          registry.AddGauge("ebnccl_tests_running", "Tests accepted and not yet finished.")),
      tests_total_(registry.AddCounter("ebnccl_tests_total",
                                       "Tests finished since the coordinator started, by verdict.",
                                       {"verdict"})),
      // Prometheus wants base units: bytes per second, not GB/s.
      busbw_(registry.AddGauge("ebnccl_test_busbw_bytes_per_second",
                               "Average bus bandwidth (nccl-tests busbw, bytes/s) of the last "
                               "test that measured this collective on this node.",
                               {"node", "collective"})) {
  for (v1::TestState state :
       {v1::TEST_STATE_PASSED, v1::TEST_STATE_FAILED, v1::TEST_STATE_TIMED_OUT,
        v1::TEST_STATE_CANCELLED, v1::TEST_STATE_INTERRUPTED}) {
    tests_total_.Initialize({VerdictLabel(state)});
  }
  for (v1::NodeState state : {v1::NODE_STATE_IDLE, v1::NODE_STATE_BUSY, v1::NODE_STATE_LOST}) {
    nodes_.Set({NodeStateLabel(state)}, 0);
  }
}

void CoordinatorMetrics::Update(const NodeRegistry& nodes, const TestManager& tests) {
  std::map<common::LabelValues, double> by_state = {{{"idle"}, 0}, {{"busy"}, 0}, {{"lost"}, 0}};
  std::map<common::LabelValues, double> ages;
  const absl::Time now = clock_.Now();
  for (const NodeRecord* node : nodes.All()) {
    if (const char* state = NodeStateLabel(node->state)) by_state[{state}] += 1;
    ages[{node->name}] = absl::ToDoubleSeconds(now - node->last_heartbeat);
  }
  nodes_.ReplaceAll(std::move(by_state));
  heartbeat_age_.ReplaceAll(std::move(ages));

  // Only the live runs: interrupted tests of an earlier process are in the
  // history but not running.
  tests_running_.Set(static_cast<double>(tests.RunningCount()));
}

void CoordinatorMetrics::OnTestFinished(const v1::TestReport& report) {
  const char* verdict = VerdictLabel(report.state());
  if (verdict == nullptr) {
    spdlog::warn("test={} metrics: OnTestFinished in non-terminal state {}; ignored",
                 report.test_id(), v1::TestState_Name(report.state()));
    return;
  }
  tests_total_.Increment({verdict});
  // A test that measured nothing (failed at launch, timed out in init) has
  // no bandwidth; it must not overwrite the last real measurement.
  if (report.results_size() == 0) return;
  if (report.collective_summaries_size() > 1) {
    // --collective a,b: each collective's own average, not the mixed one.
    for (const v1::CollectiveSummary& footer : report.collective_summaries()) {
      if (footer.sizes() == 0) continue;
      for (const std::string& node : report.spec().node_names()) {
        busbw_.Set({node, spec::DisplayName(footer.collective())}, footer.avg_busbw_gbps() * 1e9);
      }
    }
    return;
  }
  const std::string collective = spec::DisplayName(report.spec().collective());
  for (const std::string& node : report.spec().node_names()) {
    busbw_.Set({node, collective}, report.avg_busbw_gbps() * 1e9);
  }
}

}  // namespace eb::coordinator
