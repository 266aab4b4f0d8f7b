#include "coordinator/ebctl/input/duration_parse.h"

#include <string>

#include "absl/strings/str_cat.h"
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
  EXPECT_EQ(zero.status().message(), "--step-timeout: '0' is too small; accepted: 1ms to 168h");
  EXPECT_EQ(ParseTimeoutMs("-5s", "--timeout").status().message(),
            "--timeout: '-5s' is negative; accepted: 1ms to 168h");
  EXPECT_EQ(ParseTimeoutMs("soon", "--init-timeout").status().message(),
            "--init-timeout: 'soon' is not a duration (e.g. 90s, 500ms, 2m); accepted: 1ms to "
            "168h");
}

// P2-2.3: "nan", "inf" and "1e308" became "must be >= 0 ms, got
// -9223372036854775808" (a float cast to int64); P2-2.4:
// "9223372036854775807ms" reached the coordinator and ended in
// DEADLINE_EXCEEDED.
TEST(ParseTimeoutMsTest, P2_2_3_And_P2_2_4_NanInfAndOverflowAreRefusedWithTheRange) {
  for (const char* text : {"nan", "inf", "-inf", "NaN"}) {
    EXPECT_EQ(ParseTimeoutMs(text, "--timeout").status().message(),
              absl::StrCat("--timeout: '", text, "' is not a finite number; accepted: 1ms to 168h"))
        << text;
  }
  for (const char* text : {"1e308", "9223372036854775807ms", "99999999999h", "169h", "604801"}) {
    EXPECT_EQ(ParseTimeoutMs(text, "--timeout").status().message(),
              absl::StrCat("--timeout: '", text, "' is too large; accepted: 1ms to 168h"))
        << text;
  }
  EXPECT_EQ(ParseTimeoutMs("168h", "--timeout").value_or(-1), int64_t{604'800'000});
  EXPECT_EQ(ParseTimeoutMs("0.0001", "--timeout").status().message(),
            "--timeout: '0.0001' is too small; accepted: 1ms to 168h");
}

// P2-2.7: phase timeouts over a week were accepted by ebctl and the
// coordinator, then refused by every agent: ebctl now refuses them.
TEST(ParseTimeoutMsTest, P2_2_7_PhaseTimeoutsOverAWeekAreRefusedByEbctl) {
  EXPECT_FALSE(ParseTimeoutMs("99999999999h", "--step-timeout").ok());
  EXPECT_FALSE(ParseTimeoutMs("604800001ms", "--launch-timeout").ok());
  EXPECT_TRUE(ParseTimeoutMs("604800000ms", "--launch-timeout").ok());
}

}  // namespace
}  // namespace eb::ebctl
