// MetricsRegistry: the exact text a scrape returns (golden), escaping, value
// formatting, atomic replacement, and the EB_CHECKs that catch naming bugs.

#include "common/metrics/metrics_registry.h"

#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testutil/prometheus_text.h"

namespace eb::common {
namespace {

using ::eb::testing::ParsePrometheusText;
using ::testing::ElementsAre;
using ::testing::Pair;

TEST(MetricsRegistryTest, RendersGoldenText) {
  MetricsRegistry registry;
  Gauge& nodes =
      registry.AddGauge("ebnccl_nodes", "Registered nodes by liveness state.", {"state"});
  Counter& tests =
      registry.AddCounter("ebnccl_tests_total", "Tests finished, by verdict.", {"verdict"});
  Gauge& running = registry.AddGauge("ebnccl_tests_running", "Tests not yet finished.");
  Gauge& busbw = registry.AddGauge("ebnccl_test_busbw_gbps", "Last average bus bandwidth.",
                                   {"node", "collective"});
  nodes.Set({"lost"}, 1);
  nodes.Set({"idle"}, 3);
  nodes.Set({"busy"}, 0);
  tests.Initialize({"passed"});
  tests.Increment({"failed"});
  tests.Increment({"passed"}, 2);
  running.Set(1);
  busbw.Set({"host1", "all_reduce"}, 187.25);
  busbw.Set({"host0", "all_reduce"}, 190.5);

  // Families sorted by name, series by label values.
  EXPECT_EQ(registry.Render(),
            "# HELP ebnccl_nodes Registered nodes by liveness state.\n"
            "# TYPE ebnccl_nodes gauge\n"
            "ebnccl_nodes{state=\"busy\"} 0\n"
            "ebnccl_nodes{state=\"idle\"} 3\n"
            "ebnccl_nodes{state=\"lost\"} 1\n"
            "# HELP ebnccl_test_busbw_gbps Last average bus bandwidth.\n"
            "# TYPE ebnccl_test_busbw_gbps gauge\n"
            "ebnccl_test_busbw_gbps{node=\"host0\",collective=\"all_reduce\"} 190.5\n"
            "ebnccl_test_busbw_gbps{node=\"host1\",collective=\"all_reduce\"} 187.25\n"
            "# HELP ebnccl_tests_running Tests not yet finished.\n"
            "# TYPE ebnccl_tests_running gauge\n"
            "ebnccl_tests_running 1\n"
            "# HELP ebnccl_tests_total Tests finished, by verdict.\n"
            "# TYPE ebnccl_tests_total counter\n"
            "ebnccl_tests_total{verdict=\"failed\"} 1\n"
            "ebnccl_tests_total{verdict=\"passed\"} 2\n");
  auto parsed = ParsePrometheusText(registry.Render());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(
      parsed->Value("ebnccl_test_busbw_gbps", {{"node", "host1"}, {"collective", "all_reduce"}}),
      187.25);
}

TEST(MetricsRegistryTest, FamiliesWithoutLabelsStartAtZero) {
  MetricsRegistry registry;
  registry.AddCounter("ebnccl_agent_worker_spawns_total", "Spawns.");
  registry.AddGauge("ebnccl_agent_connected", "Connected.");
  EXPECT_EQ(registry.Render(),
            "# HELP ebnccl_agent_connected Connected.\n"
            "# TYPE ebnccl_agent_connected gauge\n"
            "ebnccl_agent_connected 0\n"
            "# HELP ebnccl_agent_worker_spawns_total Spawns.\n"
            "# TYPE ebnccl_agent_worker_spawns_total counter\n"
            "ebnccl_agent_worker_spawns_total 0\n");
}

TEST(MetricsRegistryTest, LabeledFamilyWithoutSeriesRendersOnlyMetadata) {
  MetricsRegistry registry;
  registry.AddGauge("ebnccl_node_heartbeat_age_seconds", "Age.", {"node"});
  EXPECT_EQ(registry.Render(),
            "# HELP ebnccl_node_heartbeat_age_seconds Age.\n"
            "# TYPE ebnccl_node_heartbeat_age_seconds gauge\n");
  EXPECT_TRUE(ParsePrometheusText(registry.Render()).ok());
}

TEST(MetricsRegistryTest, EscapesLabelValuesAndHelp) {
  MetricsRegistry registry;
  Gauge& gauge = registry.AddGauge("eb_escape", "Help with \\ and\nnewline.", {"node"});
  gauge.Set({"a\"b\\c\nd"}, 1);
  EXPECT_EQ(registry.Render(),
            "# HELP eb_escape Help with \\\\ and\\nnewline.\n"
            "# TYPE eb_escape gauge\n"
            "eb_escape{node=\"a\\\"b\\\\c\\nd\"} 1\n");
  // And it reads back to the original value.
  auto parsed = ParsePrometheusText(registry.Render());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->Value("eb_escape", {{"node", "a\"b\\c\nd"}}), 1);
  EXPECT_EQ(parsed->families.at("eb_escape").help, "Help with \\ and\nnewline.");
}

TEST(MetricsRegistryTest, FormatsValues) {
  EXPECT_EQ(FormatMetricValue(0), "0");
  EXPECT_EQ(FormatMetricValue(-0.0), "0");
  EXPECT_EQ(FormatMetricValue(12), "12");
  EXPECT_EQ(FormatMetricValue(-3), "-3");
  EXPECT_EQ(FormatMetricValue(1e15), "1000000000000000");
  EXPECT_EQ(FormatMetricValue(0.5), "0.5");
  EXPECT_EQ(FormatMetricValue(187.123456789), "187.123456789");
  EXPECT_EQ(FormatMetricValue(0.1 + 0.2), "0.30000000000000004");  // round-trips exactly
  EXPECT_EQ(FormatMetricValue(1e300), "1e+300");
  EXPECT_EQ(FormatMetricValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatMetricValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatMetricValue(std::nan("")), "NaN");
}

TEST(MetricsRegistryTest, GaugeOperations) {
  MetricsRegistry registry;
  Gauge& gauge = registry.AddGauge("eb_gauge", "G.", {"node"});
  gauge.Set({"a"}, 5);
  gauge.Add({"a"}, -2);
  gauge.Add({"b"}, 1);
  EXPECT_EQ(gauge.Value({"a"}), 3);
  EXPECT_TRUE(gauge.Has({"b"}));
  gauge.Remove({"b"});
  EXPECT_FALSE(gauge.Has({"b"}));
  EXPECT_EQ(gauge.Value({"b"}), 0);
  gauge.ReplaceAll({{{"x"}, 1}, {{"y"}, 2}});
  EXPECT_THAT(gauge.Snapshot(), ElementsAre(Pair(LabelValues{"x"}, 1), Pair(LabelValues{"y"}, 2)));
}

TEST(MetricsRegistryTest, CounterInitializeKeepsExistingValue) {
  MetricsRegistry registry;
  Counter& counter = registry.AddCounter("eb_events_total", "E.", {"kind"});
  counter.Increment({"a"}, 3);
  counter.Initialize({"a"});
  counter.Initialize({"b"});
  EXPECT_EQ(counter.Value({"a"}), 3);
  EXPECT_TRUE(counter.Has({"b"}));
  EXPECT_EQ(counter.Value({"b"}), 0);
}

TEST(MetricsRegistryTest, ValidatesNames) {
  EXPECT_TRUE(IsValidMetricName("ebnccl_nodes"));
  EXPECT_TRUE(IsValidMetricName("job:rate5m"));
  EXPECT_FALSE(IsValidMetricName("1abc"));
  EXPECT_FALSE(IsValidMetricName("a-b"));
  EXPECT_FALSE(IsValidMetricName(""));
  EXPECT_TRUE(IsValidLabelName("node"));
  EXPECT_FALSE(IsValidLabelName("a:b"));
  EXPECT_FALSE(IsValidLabelName("0x"));
}

TEST(MetricsRegistryTest, ConcurrentUpdatesAndScrapes) {
  MetricsRegistry registry;
  Counter& counter = registry.AddCounter("eb_hits_total", "Hits.", {"thread"});
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&counter, t] {
      for (int i = 0; i < 1000; ++i) counter.Increment({std::to_string(t)});
    });
  }
  for (int i = 0; i < 50; ++i) EXPECT_TRUE(ParsePrometheusText(registry.Render()).ok());
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(counter.Value({std::to_string(t)}), 1000);
}

using MetricsRegistryDeathTest = ::testing::Test;

TEST_F(MetricsRegistryDeathTest, NamingBugsFailChecks) {
  EXPECT_DEATH(
      {
        MetricsRegistry registry;
        registry.AddGauge("bad-name", "x");
      },
      "IsValidMetricName");
  EXPECT_DEATH(
      {
        MetricsRegistry registry;
        registry.AddCounter("eb_events", "a counter without _total");
      },
      "_total");
  EXPECT_DEATH(
      {
        MetricsRegistry registry;
        registry.AddGauge("eb_twice", "x");
        registry.AddGauge("eb_twice", "x");
      },
      "inserted");
  EXPECT_DEATH(
      {
        MetricsRegistry registry;
        registry.AddGauge("eb_reserved", "x", {"__name"});
      },
      "IsValidLabelName");
  EXPECT_DEATH(
      {
        MetricsRegistry registry;
        registry.AddGauge("eb_arity", "x", {"node"}).Set({"a", "b"}, 1);
      },
      "label_names_.size");
  EXPECT_DEATH(
      {
        MetricsRegistry registry;
        registry.AddCounter("eb_down_total", "x").Increment({}, -1);
      },
      "delta >= 0");
}

}  // namespace
}  // namespace eb::common
