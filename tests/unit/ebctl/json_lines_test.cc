#include "coordinator/ebctl/output/json_lines.h"

#include <string>

#include "coordinator/ebctl/output/report_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/ebctl/test_reports.h"

namespace eb::ebctl {
namespace {

namespace v1 = ebnccl::v1;
using nlohmann::json;

TEST(JsonLinesTest, EachRowCarriesTheTestsIdentityAndTheRowsFields) {
  const v1::TestReport report = testing::TwoRankReport();
  ASSERT_GT(report.results_size(), 0);
  const json line = RowJsonLine(report.results(0), report);
  EXPECT_EQ(line["schema"], "ebnccl.test_row");
  EXPECT_EQ(line["schema_version"], 1);
  EXPECT_EQ(line["test_id"], "t-20261129-154501-3f2a");
  EXPECT_EQ(line["collective"], "all_reduce");
  EXPECT_EQ(line["transport"], "gloo");
  EXPECT_EQ(line["nodes"], json::array({"host1", "host2"}));
  EXPECT_EQ(line["ranks"], 2);
  // Every field of the --json report's row, with the same values.
  const json row = SizeResultToJson(report.results(0), report.spec());
  for (const auto& [key, value] : row.items()) EXPECT_EQ(line[key], value) << key;
  // The identity's seven fields beside the row's; `collective` is in both
  // (the row's wins: with several collectives it is that row's own).
  ASSERT_TRUE(row.contains("collective"));
  EXPECT_EQ(line.size(), row.size() + 6) << line.dump();
}

TEST(JsonLinesTest, TheLastLineIsTheReportWithoutItsRows) {
  const v1::TestReport report = testing::TwoRankReport();
  json expected = ReportToJson(report, "9.9.9");
  expected.erase("results");
  const json line = FinishedJsonLine(report, "9.9.9");
  EXPECT_EQ(line, expected);
  EXPECT_FALSE(line.contains("results"));
  EXPECT_EQ(line["schema"], "ebnccl.test_report");
}

TEST(JsonLinesTest, OneObjectPerLineEvenWithNewlinesInStrings) {
  v1::TestReport report = testing::TwoRankReport();
  report.set_summary("line one\nline two");
  const std::string text = ToJsonLine(FinishedJsonLine(report));
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\n'), text.size() - 1) << text;
  EXPECT_EQ(json::parse(text)["summary"], "line one\nline two");
}

}  // namespace
}  // namespace eb::ebctl
