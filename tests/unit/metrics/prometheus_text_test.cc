// The strict exposition-format parser used by the /metrics tests: it must
// accept well-formed text and reject what a Prometheus server would, so that
// "parses" in another test means "Prometheus can scrape it".

#include "tests/testutil/prometheus_text.h"

#include <cmath>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::testing {
namespace {

using ::testing::HasSubstr;

std::string ErrorOf(const std::string& text) {
  auto parsed = ParsePrometheusText(text);
  return parsed.ok() ? "" : std::string(parsed.status().message());
}

TEST(PrometheusTextTest, ParsesFamiliesSamplesAndLabels) {
  auto parsed = ParsePrometheusText(
      "# HELP up_total Things, with a \\\\ and a \\n.\n"
      "# TYPE up_total counter\n"
      "up_total{a=\"x\",b=\"q\\\"uote\"} 3\n"
      "up_total{a=\"y\",} 4 1700000000000\n"
      "# a plain comment\n"
      "\n"
      "# TYPE temp gauge\n"
      "temp -1.5e+3\n"
      "temp{k=\"inf\"} +Inf\n"
      "temp{k=\"nan\"} NaN\n");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->families.at("up_total").type, "counter");
  EXPECT_EQ(parsed->families.at("up_total").help, "Things, with a \\ and a \n.");
  EXPECT_EQ(parsed->Value("up_total", {{"a", "x"}, {"b", "q\"uote"}}), 3);
  EXPECT_EQ(parsed->Value("up_total", {{"a", "y"}}), 4);
  EXPECT_EQ(parsed->Value("temp"), -1500);
  EXPECT_TRUE(std::isinf(*parsed->Value("temp", {{"k", "inf"}})));
  EXPECT_TRUE(std::isnan(*parsed->Value("temp", {{"k", "nan"}})));
  EXPECT_EQ(parsed->Series("up_total").size(), 2u);
  EXPECT_FALSE(parsed->Value("up_total").has_value());
}

TEST(PrometheusTextTest, RejectsMalformedText) {
  EXPECT_THAT(ErrorOf("# TYPE a gauge\na 1"), HasSubstr("newline"));
  EXPECT_THAT(ErrorOf("a 1\n"), HasSubstr("before its TYPE"));
  EXPECT_THAT(ErrorOf("# TYPE a gauge\n# TYPE a gauge\n"), HasSubstr("second TYPE"));
  EXPECT_THAT(ErrorOf("# TYPE a summary\n"), HasSubstr("unsupported type"));
  // A histogram's _bucket, _sum and _count belong to it and stay together;
  // the suffixes mean nothing for a gauge.
  EXPECT_THAT(ErrorOf("# TYPE h histogram\nh_count 1\nh_sum 2\nh_bucket{le=\"+Inf\"} 1\n"),
              ::testing::IsEmpty());
  EXPECT_THAT(ErrorOf("# TYPE h histogram\n# TYPE g gauge\nh_count 1\ng 1\nh_sum 2\n"),
              HasSubstr("not contiguous"));
  EXPECT_THAT(ErrorOf("# TYPE g gauge\ng_count 1\n"), HasSubstr("before its TYPE"));
  EXPECT_THAT(ErrorOf("# TYPE a counter\n"), HasSubstr("_total"));
  EXPECT_THAT(ErrorOf("# TYPE a gauge\n# TYPE b gauge\na 1\nb 1\na 2\n"),
              HasSubstr("not contiguous"));
  EXPECT_THAT(ErrorOf("# TYPE a gauge\na 1\n# HELP a late\n"), HasSubstr("after its samples"));
  EXPECT_THAT(ErrorOf("# TYPE a gauge\na{x=\"1\"} 1\na{x=\"1\"} 2\n"), HasSubstr("duplicate"));
  EXPECT_THAT(ErrorOf("# TYPE a gauge\na{x=\"\\t\"} 1\n"), HasSubstr("bad escape"));
  EXPECT_THAT(ErrorOf("# TYPE a gauge\na{x=\"1} 1\n"), HasSubstr("unterminated"));
  EXPECT_THAT(ErrorOf("# TYPE a gauge\na{x=1} 1\n"), HasSubstr("expected =\""));
  EXPECT_THAT(ErrorOf("# TYPE a gauge\na{x=\"1\",x=\"2\"} 1\n"), HasSubstr("twice"));
  EXPECT_THAT(ErrorOf("# TYPE a gauge\na one\n"), HasSubstr("bad value"));
  EXPECT_THAT(ErrorOf("# TYPE a gauge\na inf\n"), HasSubstr("bad value"));
  EXPECT_THAT(ErrorOf("# TYPE a gauge\na 1 soon\n"), HasSubstr("bad timestamp"));
  EXPECT_THAT(ErrorOf("# TYPE a gauge\na\n"), HasSubstr("space before the value"));
  EXPECT_THAT(ErrorOf("# TYPE 9a gauge\n"), HasSubstr("bad metric name"));
  EXPECT_THAT(ErrorOf("# TYPE a gauge\na 1\n"), ::testing::IsEmpty());
}

}  // namespace
}  // namespace eb::testing
