// The process metrics: /proc parsing on fixed text (a command name with
// spaces and parentheses, short lines), the families they become, and one
// real collection of this process read back through the strict parser.

#include "common/metrics/process_metrics.h"

#include <memory>

#include "common/metrics/metrics_registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testutil/prometheus_text.h"

namespace eb::common {
namespace {

// pid (comm) state ppid ... utime(14) stime(15) ... starttime(22) vsize(23) rss(24) ...
constexpr char kStat[] =
    "4242 (eb worker (1)) S 1 4242 4242 0 -1 4194560 500 0 0 0 250 50 0 0 20 0 9 0 "
    "12345 104857600 2560 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 3 0 0 0 0 0";

TEST(ProcessMetricsTest, ParsesProcSelfStat) {
  absl::StatusOr<ProcessStat> stat = ParseProcStat(kStat, 100, 4096);
  ASSERT_TRUE(stat.ok()) << stat.status();
  EXPECT_EQ(stat->cpu_seconds, 3.0);  // (250 + 50) ticks at 100 Hz
  EXPECT_EQ(stat->start_seconds_after_boot, 123.45);
  EXPECT_EQ(stat->virtual_bytes, 104857600);
  EXPECT_EQ(stat->resident_bytes, 2560.0 * 4096);
}

TEST(ProcessMetricsTest, RefusesWhatIsNotAStatLine) {
  EXPECT_FALSE(ParseProcStat("no parenthesis here", 100, 4096).ok());
  EXPECT_FALSE(ParseProcStat("1 (x) S 1 2 3", 100, 4096).ok());
  EXPECT_FALSE(ParseProcStat(kStat, 0, 4096).ok());
}

TEST(ProcessMetricsTest, ParsesBootTime) {
  absl::StatusOr<double> boot =
      ParseBootTime("cpu  1 2 3\nintr 5\nbtime 1800000000\nprocesses 9\n");
  ASSERT_TRUE(boot.ok());
  EXPECT_EQ(*boot, 1800000000);
  EXPECT_FALSE(ParseBootTime("cpu 1 2 3\n").ok());
}

TEST(ProcessMetricsTest, FamiliesHaveTheStandardNamesAndTypes) {
  ProcessStat stat;
  stat.cpu_seconds = 3;
  stat.start_seconds_after_boot = 100;
  const auto families = ProcessFamilies(stat, 1800000000, 12, 1024);
  ASSERT_EQ(families.size(), 6u);
  EXPECT_EQ(families[0].name, "process_cpu_seconds_total");
  EXPECT_EQ(families[0].type, prometheus::MetricType::Counter);
  EXPECT_EQ(families[0].metric.at(0).counter.value, 3);
  EXPECT_EQ(families[3].name, "process_start_time_seconds");
  EXPECT_EQ(families[3].metric.at(0).gauge.value, 1800000100);
  EXPECT_EQ(ProcessFamilies(stat, 0, std::nullopt, std::nullopt).size(), 4u);
}

TEST(ProcessMetricsTest, CollectsThisProcess) {
  MetricsRegistry registry;
  registry.AddCollectable(std::make_unique<ProcessCollector>());
  auto parsed = eb::testing::ParsePrometheusText(registry.Render());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_GT(parsed->Value("process_resident_memory_bytes").value_or(0), 0);
  EXPECT_GT(parsed->Value("process_start_time_seconds").value_or(0), 1.6e9);
  EXPECT_GT(parsed->Value("process_open_fds").value_or(0), 2);
  EXPECT_EQ(parsed->families.at("process_cpu_seconds_total").type, "counter");
}

}  // namespace
}  // namespace eb::common
