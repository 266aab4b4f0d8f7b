// MetricsRegistry over prometheus-cpp: the exact text a scrape returns
// (golden: families by name, series by labels, labels by name), escaping,
// value formatting, histograms, extra collectables, atomic replacement, and
// the EB_CHECKs that catch naming bugs.

#include "common/metrics/metrics_registry.h"

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <utility>
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

  // Families sorted by name, series by labels; labels by name (prometheus-cpp).
  EXPECT_EQ(registry.Render(),
            "# HELP ebnccl_nodes Registered nodes by liveness state.\n"
            "# TYPE ebnccl_nodes gauge\n"
            "ebnccl_nodes{state=\"busy\"} 0\n"
            "ebnccl_nodes{state=\"idle\"} 3\n"
            "ebnccl_nodes{state=\"lost\"} 1\n"
            "# HELP ebnccl_test_busbw_gbps Last average bus bandwidth.\n"
            "# TYPE ebnccl_test_busbw_gbps gauge\n"
            "ebnccl_test_busbw_gbps{collective=\"all_reduce\",node=\"host0\"} 190.5\n"
            "ebnccl_test_busbw_gbps{collective=\"all_reduce\",node=\"host1\"} 187.25\n"
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

TEST(MetricsRegistryTest, LabeledFamilyWithoutSeriesRendersNothing) {
  // prometheus-cpp leaves out a family with no series (metadata alone tells
  // Prometheus nothing).
  MetricsRegistry registry;
  registry.AddGauge("ebnccl_node_heartbeat_age_seconds", "Age.", {"node"});
  EXPECT_EQ(registry.Render(), "");
  EXPECT_NE(registry.Find("ebnccl_node_heartbeat_age_seconds"), nullptr);
}

TEST(MetricsRegistryTest, EscapesLabelValues) {
  MetricsRegistry registry;
  Gauge& gauge = registry.AddGauge("eb_escape", "Help.", {"node"});
  gauge.Set({"a\"b\\c\nd"}, 1);
  EXPECT_EQ(registry.Render(),
            "# HELP eb_escape Help.\n"
            "# TYPE eb_escape gauge\n"
            "eb_escape{node=\"a\\\"b\\\\c\\nd\"} 1\n");
  // And it reads back to the original value.
  auto parsed = ParsePrometheusText(registry.Render());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->Value("eb_escape", {{"node", "a\"b\\c\nd"}}), 1);
}

TEST(MetricsRegistryTest, FormatsValues) {
  // prometheus-cpp's TextSerializer: 16 significant digits, integers without
  // a fraction, "+Inf"/"-Inf".
  MetricsRegistry registry;
  Gauge& gauge = registry.AddGauge("eb_value", "V.", {"i"});
  const std::vector<std::pair<double, std::string>> cases = {
      {0, "0"},
      {12, "12"},
      {-3, "-3"},
      {1e15, "1000000000000000"},
      {0.5, "0.5"},
      {187.123456789, "187.123456789"},
      {4.5e11, "450000000000"},  // 450 GB/s in bytes per second
      {1e300, "1e+300"},
      {std::numeric_limits<double>::infinity(), "+Inf"},
      {-std::numeric_limits<double>::infinity(), "-Inf"},
  };
  for (size_t i = 0; i < cases.size(); ++i)
    gauge.Set({std::string(1, static_cast<char>('a' + i))}, cases[i].first);
  const std::string text = registry.Render();
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_THAT(text,
                ::testing::HasSubstr("eb_value{i=\"" + std::string(1, static_cast<char>('a' + i)) +
                                     "\"} " + cases[i].second + "\n"));
  }
  EXPECT_TRUE(ParsePrometheusText(text).ok());
}

TEST(MetricsRegistryTest, HistogramRendersCumulativeBuckets) {
  MetricsRegistry registry;
  Histogram& histogram =
      registry.AddHistogram("eb_duration_seconds", "Durations.", {"collective"}, {1, 10});
  histogram.Observe({"all_reduce"}, 0.5);
  histogram.Observe({"all_reduce"}, 3);
  histogram.Observe({"all_reduce"}, 30);
  EXPECT_EQ(histogram.Value({"all_reduce"}), 3);
  EXPECT_EQ(histogram.Sum({"all_reduce"}), 33.5);
  EXPECT_EQ(registry.Render(),
            "# HELP eb_duration_seconds Durations.\n"
            "# TYPE eb_duration_seconds histogram\n"
            "eb_duration_seconds_count{collective=\"all_reduce\"} 3\n"
            "eb_duration_seconds_sum{collective=\"all_reduce\"} 33.5\n"
            "eb_duration_seconds_bucket{collective=\"all_reduce\",le=\"1\"} 1\n"
            "eb_duration_seconds_bucket{collective=\"all_reduce\",le=\"10\"} 2\n"
            "eb_duration_seconds_bucket{collective=\"all_reduce\",le=\"+Inf\"} 3\n");
  auto parsed = ParsePrometheusText(registry.Render());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(
      parsed->Value("eb_duration_seconds_bucket", {{"collective", "all_reduce"}, {"le", "10"}}), 2);
}

class FixedCollectable final : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override {
    prometheus::MetricFamily family;
    family.name = "a_first";
    family.help = "Collected at scrape time.";
    family.type = prometheus::MetricType::Gauge;
    family.metric.emplace_back();
    family.metric.back().gauge.value = 7;
    return {family};
  }
};

TEST(MetricsRegistryTest, CollectablesAreRenderedInNameOrder) {
  MetricsRegistry registry;
  registry.AddGauge("eb_gauge", "G.").Set(1);
  registry.AddCollectable(std::make_unique<FixedCollectable>());
  EXPECT_EQ(registry.Render(),
            "# HELP a_first Collected at scrape time.\n"
            "# TYPE a_first gauge\n"
            "a_first 7\n"
            "# HELP eb_gauge G.\n"
            "# TYPE eb_gauge gauge\n"
            "eb_gauge 1\n");
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

TEST(MetricsRegistryTest, ReplaceAllRemovesTheSeriesItDoesNotName) {
  MetricsRegistry registry;
  Gauge& gauge = registry.AddGauge("eb_gauge", "G.", {"node"});
  gauge.ReplaceAll({{{"a"}, 1}, {{"b"}, 2}});
  gauge.ReplaceAll({{{"b"}, 3}});
  EXPECT_EQ(registry.Render(),
            "# HELP eb_gauge G.\n"
            "# TYPE eb_gauge gauge\n"
            "eb_gauge{node=\"b\"} 3\n");
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
  // prometheus-cpp 1.0.1 does not escape HELP text.
  EXPECT_DEATH(
      {
        MetricsRegistry registry;
        registry.AddGauge("eb_help", "two\nlines");
      },
      "find_first_of");
  EXPECT_DEATH(
      {
        MetricsRegistry registry;
        registry.AddHistogram("eb_hist_seconds", "x", {}, {10, 1});
      },
      "is_sorted");
}

}  // namespace
}  // namespace eb::common
