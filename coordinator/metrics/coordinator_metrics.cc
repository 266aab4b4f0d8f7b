#include "coordinator/metrics/coordinator_metrics.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/spec/proto_enums.h"
#include "common/spec/wire_names.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

std::optional<std::string> VerdictLabel(v1::TestState state) {
  switch (state) {
    case v1::TEST_STATE_PASSED:
    case v1::TEST_STATE_FAILED:
    case v1::TEST_STATE_TIMED_OUT:
    case v1::TEST_STATE_CANCELLED:
    case v1::TEST_STATE_INTERRUPTED:
      return spec::WireName(state);
    default:
      return std::nullopt;
  }
}

std::optional<std::string> NodeStateLabel(v1::NodeState state) {
  switch (state) {
    case v1::NODE_STATE_IDLE:
    case v1::NODE_STATE_BUSY:
    case v1::NODE_STATE_LOST:
      return spec::WireName(state);
    default:
      return std::nullopt;
  }
}

namespace {

// Verdicts in ebnccl_test_last_verdict's state set, in a fixed order.
constexpr v1::TestState kVerdicts[] = {v1::TEST_STATE_PASSED, v1::TEST_STATE_FAILED,
                                       v1::TEST_STATE_TIMED_OUT, v1::TEST_STATE_CANCELLED,
                                       v1::TEST_STATE_INTERRUPTED};

// The test's nodes: its spec's list, or, for a test over "every idle node"
// (an empty list), the nodes of its rank map.
std::vector<std::string> TestNodes(const v1::TestReport& report) {
  std::vector<std::string> nodes(report.spec().node_names().begin(),
                                 report.spec().node_names().end());
  if (!nodes.empty()) return nodes;
  for (const v1::RankAssignment& rank : report.ranks()) {
    if (std::find(nodes.begin(), nodes.end(), rank.node_name()) == nodes.end()) {
      nodes.push_back(rank.node_name());
    }
  }
  return nodes;
}

// The display names of the test's collectives: its list, or its one.
std::vector<std::string> TestCollectives(const v1::TestSpec& spec) {
  std::vector<std::string> names;
  for (int collective : spec.collectives()) {
    names.emplace_back(spec::DisplayName(static_cast<v1::Collective>(collective)));
  }
  if (names.empty()) names.emplace_back(spec::DisplayName(spec.collective()));
  return names;
}

}  // namespace

const char* SizeClassLabel(const v1::TestReport& report) {
  int64_t largest = 0;
  for (const v1::SizeResult& row : report.results()) largest = std::max(largest, row.size_bytes());
  if (largest == 0) largest = report.spec().max_bytes();
  constexpr int64_t kMiB = int64_t{1} << 20;
  if (largest < kMiB) return "small";
  if (largest < 256 * kMiB) return "medium";
  return "large";
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
      // From a second to the longest sweeps (hours): what an operator tunes
      // --timeout against.
      duration_(registry.AddHistogram(
          "ebnccl_test_duration_seconds", "Wall time of finished tests, from start to verdict.",
          {"collective"}, {1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200})),
      last_verdict_(registry.AddGauge("ebnccl_test_last_verdict",
                                      "1 for the verdict of the last test of this collective and "
                                      "size class on this node, 0 for the others.",
                                      {"node", "collective", "size_class", "verdict"})),
      last_timestamp_(registry.AddGauge(
          "ebnccl_test_last_timestamp_seconds",
          "Unix time the last test of this collective and size class on this node ended.",
          {"node", "collective", "size_class"})),
      // Prometheus wants base units: bytes per second, not GB/s.
      busbw_(registry.AddGauge("ebnccl_test_busbw_bytes_per_second",
                               "Average bus bandwidth (nccl-tests busbw, bytes/s) of the last "
                               "test of this collective and size class on this node; absent "
                               "when that test measured nothing.",
                               {"node", "collective", "size_class"})) {
  for (v1::TestState state : kVerdicts) tests_total_.Initialize({*VerdictLabel(state)});
  for (v1::NodeState state : {v1::NODE_STATE_IDLE, v1::NODE_STATE_BUSY, v1::NODE_STATE_LOST}) {
    nodes_.Set({*NodeStateLabel(state)}, 0);
  }
}

void CoordinatorMetrics::Update(const NodeRegistry& nodes, const TestManager& tests) {
  std::map<common::LabelValues, double> by_state = {{{"idle"}, 0}, {{"busy"}, 0}, {{"lost"}, 0}};
  std::map<common::LabelValues, double> ages;
  const absl::Time now = clock_.Now();
  for (const NodeRecord* node : nodes.All()) {
    if (std::optional<std::string> state = NodeStateLabel(node->state)) by_state[{*state}] += 1;
    ages[{node->name}] = absl::ToDoubleSeconds(now - node->last_heartbeat);
  }
  nodes_.ReplaceAll(std::move(by_state));
  heartbeat_age_.ReplaceAll(std::move(ages));

  // Only the live runs: interrupted tests of an earlier process are in the
  // history but not running.
  tests_running_.Set(static_cast<double>(tests.RunningCount()));
}

void CoordinatorMetrics::OnTestFinished(const v1::TestReport& report) {
  const std::optional<std::string> verdict = VerdictLabel(report.state());
  if (!verdict.has_value()) {
    spdlog::warn("test={} metrics: OnTestFinished in non-terminal state {}; ignored",
                 report.test_id(), v1::TestState_Name(report.state()));
    return;
  }
  tests_total_.Increment({*verdict});
  const std::string collective = spec::DisplayName(report.spec().collective());
  if (report.start_time_unix_ms() > 0 && report.end_time_unix_ms() >= report.start_time_unix_ms()) {
    // A test of several collectives counts once under each of them (their
    // runs share one wall time): `_count{collective}` is how many tests ran
    // that collective, whether alone or in a list.
    const double seconds =
        static_cast<double>(report.end_time_unix_ms() - report.start_time_unix_ms()) / 1000.0;
    for (const std::string& name : TestCollectives(report.spec())) {
      duration_.Observe({name}, seconds);
    }
  }
  const std::string size_class = SizeClassLabel(report);
  const double ended =
      static_cast<double>(report.end_time_unix_ms() > 0 ? report.end_time_unix_ms()
                                                        : absl::ToUnixMillis(clock_.Now())) /
      1000.0;
  // One figure per collective: --collective a,b gives each its own footer's
  // average, never the mixed one.
  struct Measured {
    std::string collective;
    bool any = false;
    double busbw_gbps = 0;
  };
  std::vector<Measured> measured;
  if (report.collective_summaries_size() > 1) {
    for (const v1::CollectiveSummary& footer : report.collective_summaries()) {
      measured.push_back(
          {spec::DisplayName(footer.collective()), footer.sizes() > 0, footer.avg_busbw_gbps()});
    }
  } else {
    measured.push_back({collective, report.results_size() > 0, report.avg_busbw_gbps()});
  }
  for (const std::string& node : TestNodes(report)) {
    for (const Measured& one : measured) {
      for (v1::TestState state : kVerdicts) {
        last_verdict_.Set({node, one.collective, size_class, *VerdictLabel(state)},
                          state == report.state() ? 1 : 0);
      }
      last_timestamp_.Set({node, one.collective, size_class}, ended);
      // A test that measured nothing (failed at launch, timed out in init)
      // has no bandwidth: the earlier figure must not stand for it.
      if (!one.any) {
        busbw_.Remove({node, one.collective, size_class});
      } else {
        busbw_.Set({node, one.collective, size_class}, one.busbw_gbps * 1e9);
      }
    }
  }
}

}  // namespace eb::coordinator
