#include "coordinator/ebctl/input/duration_parse.h"

#include <string>

#include "gtest/gtest.h"

namespace eb::ebctl {
namespace {

TEST(ParseTimeoutMsTest, BareNumbersAreSeconds) {
  EXPECT_EQ(*ParseTimeoutMs("90", "--timeout"), 90'000);
  EXPECT_EQ(*ParseTimeoutMs("1.5", "--timeout"), 1'500);
}

TEST(ParseTimeoutMsTest, DurationsWithUnits) {
  EXPECT_EQ(*ParseTimeoutMs("90s", "--timeout"), 90'000);
  EXPECT_EQ(*ParseTimeoutMs("500ms", "--timeout"), 500);
  EXPECT_EQ(*ParseTimeoutMs("2m", "--timeout"), 120'000);
  EXPECT_EQ(*ParseTimeoutMs("1h30m", "--timeout"), 5'400'000);
}

TEST(ParseTimeoutMsTest, EmptyLeavesTheCoordinatorsDefault) {
  EXPECT_EQ(*ParseTimeoutMs("", "--timeout"), 0);
}

TEST(ParseTimeoutMsTest, NonPositiveOrGarbageIsAnInvalidArgumentNamingTheFlag) {
  auto zero = ParseTimeoutMs("0", "--step-timeout");
  EXPECT_EQ(zero.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(zero.status().message(), "--step-timeout: must be > 0");
  EXPECT_EQ(ParseTimeoutMs("-5s", "--timeout").status().message(),
            "--timeout: '-5s' is not a positive duration (e.g. 90, 90s, 500ms, 2m)");
  EXPECT_EQ(ParseTimeoutMs("soon", "--init-timeout").status().message(),
            "--init-timeout: 'soon' is not a positive duration (e.g. 90, 90s, 500ms, 2m)");
}

}  // namespace
}  // namespace eb::ebctl
