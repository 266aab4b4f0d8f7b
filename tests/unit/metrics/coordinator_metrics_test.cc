// CoordinatorMetrics against a real NodeRegistry and TestManager on a
// FakeClock and a ManualExecutor: node states and heartbeat ages follow the
// registry, running tests and verdicts follow the manager, and the last
// verdict, time and bandwidth of a real sweep land on each of its nodes under
// its size class. The scrape text is checked through the strict parser.

#include "coordinator/metrics/coordinator_metrics.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/config.h"
#include "coordinator/core/collective_tests/collective_test_manager.h"
#include "coordinator/core/collective_tests/rendezvous_kv.h"
#include "coordinator/core/nodes/node_registry.h"
#include "coordinator/history/in_memory_history.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_agent_channel.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/manual_executor.h"
#include "tests/testutil/prometheus_text.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;
using ::eb::testing::ParsePrometheusText;
using ::eb::testing::PromLabels;
using ::eb::testing::PromText;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;

const std::vector<int64_t> kSizes = {1024, 2048};

class NullObserver final : public TestObserver {
 public:
  void OnEvent(const v1::RunTestEvent&) override {}
};

class CoordinatorMetricsTest : public ::testing::Test {
 protected:
  CoordinatorMetricsTest() {
    registry_.set_on_lost([this](const std::string& node, const std::string& reason) {
      manager_.OnNodeLost(node, reason);
    });
  }

  static CoordinatorConfig Config() {
    CoordinatorConfig config;
    config.heartbeat_period = absl::Seconds(2);
    config.heartbeat_miss_limit = 3;
    config.stop_timeout = absl::Seconds(5);
    return config;
  }

  void AddNode(const std::string& name) {
    v1::RegisterAgent request;
    request.set_node_name(name);
    request.mutable_inventory()->set_hostname(name);
    request.mutable_inventory()->set_worker_slots(1);
    request.mutable_inventory()->add_transports(v1::TRANSPORT_GLOO);
    const uint64_t session = next_session_++;
    ASSERT_TRUE(
        registry_.Register(session, request, std::make_shared<eb::testing::FakeAgentChannel>())
            .ok());
    sessions_[name] = session;
  }

  std::string Start(const std::vector<std::string>& nodes) {
    v1::TestSpec spec;
    spec.set_collective(v1::COLLECTIVE_ALL_REDUCE);
    spec.set_min_bytes(kSizes.front());
    spec.set_max_bytes(kSizes.back());
    spec.set_step_factor(2);
    spec.set_iterations(5);
    for (const std::string& node : nodes) spec.add_node_names(node);
    absl::StatusOr<std::string> id = manager_.StartTest(spec, std::make_shared<NullObserver>());
    EXPECT_TRUE(id.ok()) << id.status();
    return id.value_or("");
  }

  // Every rank registers, joins, reports each size (100 us) and finishes;
  // then every agent confirms its workers are gone.
  void RunToCompletion(const std::string& test_id) {
    const v1::TestReport report = manager_.GetTest(test_id).value();
    auto send = [&](const v1::RankAssignment& rank, v1::WorkerEventKind kind,
                    std::optional<int64_t> size = std::nullopt) {
      v1::WorkerEvent event;
      event.set_test_id(test_id);
      event.set_rank(rank.rank());
      event.set_kind(kind);
      if (size) {
        v1::RankSizeResult& result = *event.mutable_size_result();
        result.set_size_bytes(*size);
        result.set_count(*size / 4);
        result.mutable_out_of_place()->set_time_us(100);
        result.mutable_in_place()->set_time_us(100);
      }
      manager_.OnWorkerEvent(rank.node_name(), event);
    };
    for (const auto& rank : report.ranks()) send(rank, v1::WORKER_EVENT_KIND_REGISTERED);
    for (const auto& rank : report.ranks()) send(rank, v1::WORKER_EVENT_KIND_JOINED);
    for (int64_t size : kSizes) {
      for (const auto& rank : report.ranks()) send(rank, v1::WORKER_EVENT_KIND_SIZE_DONE, size);
    }
    for (const auto& rank : report.ranks()) send(rank, v1::WORKER_EVENT_KIND_FINISHED);
    for (const std::string& node : report.spec().node_names()) {
      manager_.OnWorkersStopped(node, test_id);
    }
    executor_.RunUntilIdle();
  }

  // What TestManager::Finished will call once the lead wires it.
  void Finished(const std::string& test_id) {
    metrics_.OnTestFinished(manager_.GetTest(test_id).value());
  }

  PromText Scrape() {
    metrics_.Update(registry_, manager_);
    auto parsed = ParsePrometheusText(metrics_registry_.Render());
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    return parsed.ok() ? *parsed : PromText{};
  }

  eb::testing::FakeClock clock_;
  eb::testing::ManualExecutor executor_{clock_};
  const CoordinatorConfig config_ = Config();
  NodeRegistry registry_{clock_, executor_, config_, nullptr};
  RendezvousKv rendezvous_{executor_};
  int next_id_ = 1;
  InMemoryTestHistory history_;
  TestManager manager_{clock_, executor_, registry_, rendezvous_, config_, history_, [this] {
                         return "t-" + std::to_string(next_id_++);
                       }};
  common::MetricsRegistry metrics_registry_;
  CoordinatorMetrics metrics_{metrics_registry_, clock_};
  uint64_t next_session_ = 1;
  std::map<std::string, uint64_t> sessions_;
};

TEST_F(CoordinatorMetricsTest, EmptyCoordinatorExportsZeros) {
  const PromText text = Scrape();
  EXPECT_THAT(text.Series("ebnccl_nodes"), ElementsAre(Pair(PromLabels{{"state", "busy"}}, 0),
                                                       Pair(PromLabels{{"state", "idle"}}, 0),
                                                       Pair(PromLabels{{"state", "lost"}}, 0)));
  EXPECT_THAT(text.Series("ebnccl_tests_total"),
              ElementsAre(Pair(PromLabels{{"verdict", "cancelled"}}, 0),
                          Pair(PromLabels{{"verdict", "failed"}}, 0),
                          Pair(PromLabels{{"verdict", "interrupted"}}, 0),
                          Pair(PromLabels{{"verdict", "passed"}}, 0),
                          Pair(PromLabels{{"verdict", "timed_out"}}, 0)));
  EXPECT_EQ(text.Value("ebnccl_tests_running"), 0);
  // Families without series are left out of the scrape (prometheus-cpp).
  for (const char* family :
       {"ebnccl_node_heartbeat_age_seconds", "ebnccl_test_busbw_bytes_per_second",
        "ebnccl_test_last_verdict", "ebnccl_test_last_timestamp_seconds",
        "ebnccl_test_duration_seconds"}) {
    EXPECT_THAT(text.Series(family), IsEmpty()) << family;
  }
  for (const char* family : {"ebnccl_nodes", "ebnccl_tests_total", "ebnccl_tests_running"}) {
    EXPECT_TRUE(text.families.contains(family)) << family;
  }
  EXPECT_EQ(text.families.at("ebnccl_tests_total").type, "counter");
}

TEST_F(CoordinatorMetricsTest, NodeStatesAndHeartbeatAgesFollowTheRegistry) {
  AddNode("host0");
  AddNode("host1");
  AddNode("host2");
  clock_.Advance(absl::Milliseconds(1500));
  ASSERT_TRUE(registry_.Heartbeat(sessions_["host0"]).ok());
  registry_.SessionClosed(sessions_["host2"]);
  executor_.RunUntilIdle();

  PromText text = Scrape();
  EXPECT_EQ(text.Value("ebnccl_nodes", {{"state", "idle"}}), 2);
  EXPECT_EQ(text.Value("ebnccl_nodes", {{"state", "lost"}}), 1);
  EXPECT_EQ(text.Value("ebnccl_nodes", {{"state", "busy"}}), 0);
  EXPECT_EQ(text.Value("ebnccl_node_heartbeat_age_seconds", {{"node", "host0"}}), 0);
  EXPECT_EQ(text.Value("ebnccl_node_heartbeat_age_seconds", {{"node", "host1"}}), 1.5);

  Start({"host0"});
  clock_.Advance(absl::Milliseconds(250));
  text = Scrape();
  EXPECT_EQ(text.Value("ebnccl_nodes", {{"state", "busy"}}), 1);
  EXPECT_EQ(text.Value("ebnccl_nodes", {{"state", "idle"}}), 1);
  EXPECT_EQ(text.Value("ebnccl_tests_running"), 1);
  EXPECT_EQ(text.Value("ebnccl_node_heartbeat_age_seconds", {{"node", "host1"}}), 1.75);
}

TEST_F(CoordinatorMetricsTest, PassedSweepCountsAndRecordsBandwidthPerNode) {
  AddNode("host0");
  AddNode("host1");
  const std::string id = Start({"host0", "host1"});
  RunToCompletion(id);
  const v1::TestReport report = manager_.GetTest(id).value();
  ASSERT_EQ(report.state(), v1::TEST_STATE_PASSED) << report.summary();
  ASSERT_GT(report.avg_busbw_gbps(), 0);
  Finished(id);

  const PromText text = Scrape();
  EXPECT_EQ(text.Value("ebnccl_tests_total", {{"verdict", "passed"}}), 1);
  EXPECT_EQ(text.Value("ebnccl_tests_running"), 0);
  EXPECT_EQ(text.Value("ebnccl_nodes", {{"state", "idle"}}), 2);
  for (const char* node : {"host0", "host1"}) {
    // 2 KiB at most: the small class.
    const PromLabels key = {{"node", node}, {"collective", "all_reduce"}, {"size_class", "small"}};
    EXPECT_THAT(text.Value("ebnccl_test_busbw_bytes_per_second", key).value_or(-1),
                DoubleNear(report.avg_busbw_gbps() * 1e9, 1e-3))
        << node;
    EXPECT_EQ(text.Value("ebnccl_test_last_timestamp_seconds", key),
              static_cast<double>(report.end_time_unix_ms()) / 1000.0);
    PromLabels passed = key;
    passed["verdict"] = "passed";
    EXPECT_EQ(text.Value("ebnccl_test_last_verdict", passed), 1);
    PromLabels failed = key;
    failed["verdict"] = "failed";
    EXPECT_EQ(text.Value("ebnccl_test_last_verdict", failed), 0);
  }
  EXPECT_EQ(text.Value("ebnccl_test_duration_seconds_count", {{"collective", "all_reduce"}}), 1);
}

TEST_F(CoordinatorMetricsTest, TestWithoutResultsClearsTheBandwidthAndSetsItsVerdict) {
  AddNode("host0");
  AddNode("host1");
  const std::string passed = Start({"host0", "host1"});
  RunToCompletion(passed);
  Finished(passed);
  const PromLabels key = {{"node", "host0"}, {"collective", "all_reduce"}, {"size_class", "small"}};
  ASSERT_TRUE(Scrape().Value("ebnccl_test_busbw_bytes_per_second", key).has_value());

  const std::string cancelled = Start({"host0", "host1"});
  clock_.Advance(absl::Seconds(3));
  ASSERT_TRUE(manager_.CancelTest(cancelled, "operator").ok());
  for (const char* node : {"host0", "host1"}) manager_.OnWorkersStopped(node, cancelled);
  executor_.RunUntilIdle();
  ASSERT_EQ(manager_.GetTest(cancelled)->state(), v1::TEST_STATE_CANCELLED);
  Finished(cancelled);

  const PromText text = Scrape();
  EXPECT_EQ(text.Value("ebnccl_tests_total", {{"verdict", "passed"}}), 1);
  EXPECT_EQ(text.Value("ebnccl_tests_total", {{"verdict", "cancelled"}}), 1);
  // The healthy figure of the earlier test does not stand for this one.
  EXPECT_FALSE(text.Value("ebnccl_test_busbw_bytes_per_second", key).has_value());
  PromLabels verdict = key;
  verdict["verdict"] = "cancelled";
  EXPECT_EQ(text.Value("ebnccl_test_last_verdict", verdict), 1);
  verdict["verdict"] = "passed";
  EXPECT_EQ(text.Value("ebnccl_test_last_verdict", verdict), 0);
  EXPECT_EQ(text.Value("ebnccl_test_last_timestamp_seconds", key),
            static_cast<double>(manager_.GetTest(cancelled)->end_time_unix_ms()) / 1000.0);
  EXPECT_EQ(text.Value("ebnccl_test_duration_seconds_count", {{"collective", "all_reduce"}}), 2);
}

// The issue-14 case: an 8-byte test after an 8 GB one must not set the
// node's bandwidth to a latency figure where the alert looks.
TEST_F(CoordinatorMetricsTest, SizeClassesKeepLatencyTestsApartFromBandwidthTests) {
  auto report = [](const std::string& id, int64_t size, double busbw_gbps, v1::TestState state) {
    v1::TestReport r;
    r.set_test_id(id);
    r.set_state(state);
    r.mutable_spec()->set_collective(v1::COLLECTIVE_ALL_TO_ALL);
    r.mutable_spec()->set_max_bytes(size);
    r.mutable_spec()->add_node_names("host0");
    r.add_results()->set_size_bytes(size);
    r.set_avg_busbw_gbps(busbw_gbps);
    r.set_start_time_unix_ms(1'000'000);
    r.set_end_time_unix_ms(1'090'000);
    return r;
  };
  metrics_.OnTestFinished(report("t-big", int64_t{8} << 30, 180, v1::TEST_STATE_PASSED));
  metrics_.OnTestFinished(report("t-tiny", 8, 0.000002, v1::TEST_STATE_PASSED));
  metrics_.OnTestFinished(report("t-mid", 4 << 20, 40, v1::TEST_STATE_FAILED));
  const PromText text = Scrape();
  auto busbw = [&](const char* size_class) {
    return text
        .Value("ebnccl_test_busbw_bytes_per_second",
               {{"node", "host0"}, {"collective", "alltoall"}, {"size_class", size_class}})
        .value_or(-1);
  };
  EXPECT_EQ(busbw("large"), 180e9);
  EXPECT_THAT(busbw("small"), DoubleNear(2000, 1e-6));
  EXPECT_EQ(busbw("medium"), 40e9);
  EXPECT_EQ(text.Value("ebnccl_test_last_verdict", {{"node", "host0"},
                                                    {"collective", "alltoall"},
                                                    {"size_class", "medium"},
                                                    {"verdict", "failed"}}),
            1);
  EXPECT_EQ(text.Value("ebnccl_test_duration_seconds_sum", {{"collective", "alltoall"}}), 270);
  EXPECT_EQ(text.Value("ebnccl_test_duration_seconds_bucket",
                       {{"collective", "alltoall"}, {"le", "120"}}),
            3);
}

// A test over "every idle node" names no nodes in its spec: its rank map
// does.
TEST_F(CoordinatorMetricsTest, NodesComeFromTheRankMapWhenTheSpecListsNone) {
  v1::TestReport report;
  report.set_test_id("t-all");
  report.set_state(v1::TEST_STATE_PASSED);
  report.mutable_spec()->set_collective(v1::COLLECTIVE_ALL_REDUCE);
  report.add_results()->set_size_bytes(1024);
  report.set_avg_busbw_gbps(1);
  for (const char* node : {"host0", "host0", "host1"}) report.add_ranks()->set_node_name(node);
  metrics_.OnTestFinished(report);
  const PromText text = Scrape();
  for (const char* node : {"host0", "host1"}) {
    EXPECT_EQ(text.Value("ebnccl_test_busbw_bytes_per_second",
                         {{"node", node}, {"collective", "all_reduce"}, {"size_class", "small"}}),
              1e9)
        << node;
  }
  EXPECT_EQ(text.Series("ebnccl_test_busbw_bytes_per_second").size(), 2u);
}

// `run-test --collective all_reduce,alltoall`: each collective has its own
// verdict, bandwidth and duration count, and the spec's first collective
// does not take the whole test.
TEST_F(CoordinatorMetricsTest, MultiCollectiveTestIsCountedPerCollective) {
  v1::TestReport report;
  report.set_test_id("t-multi");
  report.set_state(v1::TEST_STATE_PASSED);
  report.mutable_spec()->set_collective(v1::COLLECTIVE_ALL_REDUCE);
  report.mutable_spec()->add_collectives(v1::COLLECTIVE_ALL_REDUCE);
  report.mutable_spec()->add_collectives(v1::COLLECTIVE_ALL_TO_ALL);
  report.mutable_spec()->add_node_names("host0");
  report.set_start_time_unix_ms(1'000'000);
  report.set_end_time_unix_ms(1'003'000);
  report.add_results()->set_size_bytes(1024);
  report.set_avg_busbw_gbps(3);  // the mixed average, never exported
  for (auto [collective, busbw] :
       {std::pair{v1::COLLECTIVE_ALL_REDUCE, 2.0}, std::pair{v1::COLLECTIVE_ALL_TO_ALL, 4.0}}) {
    v1::CollectiveSummary& footer = *report.add_collective_summaries();
    footer.set_collective(collective);
    footer.set_sizes(1);
    footer.set_avg_busbw_gbps(busbw);
  }
  metrics_.OnTestFinished(report);
  const PromText text = Scrape();
  EXPECT_EQ(text.Value("ebnccl_tests_total", {{"verdict", "passed"}}), 1);  // one test
  for (auto [collective, busbw] : {std::pair{"all_reduce", 2e9}, std::pair{"alltoall", 4e9}}) {
    EXPECT_EQ(text.Value("ebnccl_test_duration_seconds_count", {{"collective", collective}}), 1)
        << collective;
    EXPECT_EQ(text.Value("ebnccl_test_duration_seconds_sum", {{"collective", collective}}), 3)
        << collective;
    const PromLabels series = {
        {"node", "host0"}, {"collective", collective}, {"size_class", "small"}};
    EXPECT_EQ(text.Value("ebnccl_test_busbw_bytes_per_second", series), busbw) << collective;
    PromLabels passed = series;
    passed["verdict"] = "passed";
    EXPECT_EQ(text.Value("ebnccl_test_last_verdict", passed), 1) << collective;
  }
  EXPECT_EQ(text.Series("ebnccl_test_duration_seconds_count").size(), 2u);
}

TEST_F(CoordinatorMetricsTest, InterruptedTestsOfAnEarlierProcessAreNotRunning) {
  v1::TestReport old;
  old.set_test_id("t-old");
  old.set_state(v1::TEST_STATE_RUNNING);
  ASSERT_TRUE(history_.Save(old).ok());
  ASSERT_TRUE(history_.MarkInterrupted("restart", 0).ok());
  AddNode("host0");
  EXPECT_EQ(Scrape().Value("ebnccl_tests_running"), 0);

  const std::string id = Start({"host0"});
  EXPECT_EQ(Scrape().Value("ebnccl_tests_running"), 1);
  manager_.InterruptAll("the coordinator was stopped");
  Finished(id);
  const PromText text = Scrape();
  EXPECT_EQ(text.Value("ebnccl_tests_running"), 0);
  EXPECT_EQ(text.Value("ebnccl_tests_total", {{"verdict", "interrupted"}}), 1);
}

TEST_F(CoordinatorMetricsTest, NonTerminalReportsAreIgnored) {
  v1::TestReport report;
  report.set_test_id("t-9");
  report.set_state(v1::TEST_STATE_RUNNING);
  metrics_.OnTestFinished(report);
  const PromText text = Scrape();
  for (const auto& [labels, value] : text.Series("ebnccl_tests_total")) EXPECT_EQ(value, 0);
}

TEST(CoordinatorMetricLabelsTest, VerdictAndStateLabels) {
  EXPECT_EQ(VerdictLabel(v1::TEST_STATE_TIMED_OUT), "timed_out");
  EXPECT_EQ(VerdictLabel(v1::TEST_STATE_STOPPING), std::nullopt);
  EXPECT_EQ(NodeStateLabel(v1::NODE_STATE_LOST), "lost");
  v1::TestReport report;
  report.mutable_spec()->set_max_bytes(int64_t{1} << 30);
  EXPECT_STREQ(SizeClassLabel(report), "large");  // asked for, nothing measured
  report.add_results()->set_size_bytes((int64_t{1} << 20) - 1);
  EXPECT_STREQ(SizeClassLabel(report), "small");  // measured wins
  report.add_results()->set_size_bytes(int64_t{1} << 20);
  EXPECT_STREQ(SizeClassLabel(report), "medium");
  report.add_results()->set_size_bytes(int64_t{256} << 20);
  EXPECT_STREQ(SizeClassLabel(report), "large");
  EXPECT_EQ(NodeStateLabel(v1::NODE_STATE_UNSPECIFIED), std::nullopt);
}

}  // namespace
}  // namespace eb::coordinator
