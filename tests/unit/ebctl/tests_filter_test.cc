#include "coordinator/ebctl/output/tests_filter.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::ebctl {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

v1::TestReport Report(const std::string& id, v1::TestState state, std::vector<std::string> nodes,
                      absl::Duration age) {
  v1::TestReport report;
  report.set_test_id(id);
  report.set_state(state);
  for (const std::string& node : nodes) report.mutable_spec()->add_node_names(node);
  report.set_start_time_unix_ms(absl::ToUnixMillis(kNow - age));
  return report;
}

v1::ListTestsReply Fleet() {
  v1::ListTestsReply reply;
  *reply.add_tests() = Report("t-4", v1::TEST_STATE_RUNNING, {"a", "b"}, absl::Minutes(1));
  *reply.add_tests() = Report("t-3", v1::TEST_STATE_FAILED, {"b"}, absl::Minutes(20));
  *reply.add_tests() = Report("t-2", v1::TEST_STATE_PASSED, {"a"}, absl::Hours(2));
  *reply.add_tests() = Report("t-1", v1::TEST_STATE_TIMED_OUT, {"c"}, absl::Hours(30));
  return reply;
}

std::vector<std::string> Ids(const v1::ListTestsReply& reply) {
  std::vector<std::string> ids;
  for (const v1::TestReport& report : reply.tests()) ids.push_back(report.test_id());
  return ids;
}

std::vector<std::string> Filtered(const std::string& nodes, const std::string& states,
                                  const std::string& since, int limit = 0) {
  absl::StatusOr<TestsFilter> filter = ParseTestsFilter(nodes, states, since, kNow);
  EXPECT_TRUE(filter.ok()) << filter.status();
  if (!filter.ok()) return {};
  return Ids(FilterTests(Fleet(), *filter, limit));
}

TEST(TestsFilterTest, NoFlagsKeepsEverything) {
  absl::StatusOr<TestsFilter> filter = ParseTestsFilter("", "", "", kNow);
  ASSERT_TRUE(filter.ok());
  EXPECT_TRUE(filter->empty());
  EXPECT_THAT(Filtered("", "", ""), ElementsAre("t-4", "t-3", "t-2", "t-1"));
}

TEST(TestsFilterTest, NodeKeepsTestsThatRanOnAnyOfTheNodes) {
  EXPECT_THAT(Filtered("a", "", ""), ElementsAre("t-4", "t-2"));
  EXPECT_THAT(Filtered("b, c", "", ""), ElementsAre("t-4", "t-3", "t-1"));
  EXPECT_THAT(Filtered("z", "", ""), ElementsAre());
}

TEST(TestsFilterTest, StateKeepsTestsInAnyOfTheStates) {
  EXPECT_THAT(Filtered("", "failed,timed_out", ""), ElementsAre("t-3", "t-1"));
  EXPECT_THAT(Filtered("", "running", ""), ElementsAre("t-4"));
}

TEST(TestsFilterTest, SinceTakesADurationOrAnRfc3339Time) {
  EXPECT_THAT(Filtered("", "", "30m"), ElementsAre("t-4", "t-3"));
  EXPECT_THAT(Filtered("", "", "3h"), ElementsAre("t-4", "t-3", "t-2"));
  EXPECT_THAT(Filtered("", "", "120"), ElementsAre("t-4"));  // seconds
  const std::string two_hours_ago =
      absl::FormatTime(absl::RFC3339_full, kNow - absl::Hours(2), absl::UTCTimeZone());
  EXPECT_THAT(Filtered("", "", two_hours_ago), ElementsAre("t-4", "t-3", "t-2"));
}

TEST(TestsFilterTest, FiltersCombineAndLimitCountsMatches) {
  EXPECT_THAT(Filtered("a,b", "passed,failed", "1d"), ElementsAre("t-3", "t-2"));
  EXPECT_THAT(Filtered("a,b", "", "", 2), ElementsAre("t-4", "t-3"));
  EXPECT_THAT(Filtered("", "", "", 1), ElementsAre("t-4"));
}

TEST(TestsFilterTest, BadValuesNameTheFlag) {
  absl::StatusOr<TestsFilter> state = ParseTestsFilter("", "passed,broken", "", kNow);
  EXPECT_EQ(state.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(state.status().message()),
              HasSubstr("--state: 'broken' is not one of launching"));
  absl::StatusOr<TestsFilter> since = ParseTestsFilter("", "", "yesterday", kNow);
  EXPECT_EQ(since.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(since.status().message()), HasSubstr("--since: 'yesterday'"));
  EXPECT_FALSE(ParseTestsFilter("", "", "-5m", kNow).ok());
}

}  // namespace
}  // namespace eb::ebctl
