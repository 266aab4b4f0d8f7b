// One parser per kind of number (common/spec/numbers.h): hostile values
// refused with the field, the value and the range (issue 32, item 5;
// P2-2.3, P2-2.4, P2-2.7, P2-2.8).

#include "common/spec/numbers.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::spec {
namespace {

using ::testing::HasSubstr;

std::string Why(const absl::Status& status) { return std::string(status.message()); }

TEST(ParseDurationTest, UnitsAndBareNumbers) {
  EXPECT_EQ(*ParseDuration("90s", "f", kTimeoutRange), absl::Seconds(90));
  EXPECT_EQ(*ParseDuration("90", "f", kTimeoutRange), absl::Seconds(90));
  EXPECT_EQ(*ParseDuration("1500", "f", kTimeoutRange, BareUnit::kMilliseconds),
            absl::Milliseconds(1500));
  EXPECT_EQ(*ParseDuration(" 2m ", "f", kTimeoutRange), absl::Minutes(2));
  EXPECT_THAT(Why(ParseDuration("90", "f", kTimeoutRange, BareUnit::kNone).status()),
              HasSubstr("a number without a unit"));
}

// P2-2.8: daemon *-ms flags "99999999999999999999" were clamped to
// INT64_MAX, "-5" described as "not in range 0.000000 to 1797693...".
TEST(ParseDurationTest, P2_2_8_HostileMillisecondFlags) {
  const auto ms = [](const char* text) {
    return Why(
        ParseDuration(text, "--step-timeout-ms", kTimeoutRange, BareUnit::kMilliseconds).status());
  };
  EXPECT_EQ(ms("99999999999999999999"),
            "--step-timeout-ms: '99999999999999999999' is too large; accepted: 1ms to 168h");
  EXPECT_EQ(ms("-5"), "--step-timeout-ms: '-5' is negative; accepted: 1ms to 168h");
  EXPECT_EQ(ms("nan"), "--step-timeout-ms: 'nan' is not a finite number; accepted: 1ms to 168h");
  EXPECT_EQ(ms("0"), "--step-timeout-ms: '0' is too small; accepted: 1ms to 168h");
  EXPECT_EQ(ms("0.5"), "--step-timeout-ms: '0.5' is too small; accepted: 1ms to 168h");
  EXPECT_EQ(ms("1e400"), "--step-timeout-ms: '1e400' is too large; accepted: 1ms to 168h");
  EXPECT_THAT(ms("12abc"), HasSubstr("is not a duration"));
  EXPECT_THAT(ms(std::string(1 << 20, '9').c_str()), HasSubstr("(1048576 bytes)"));
}

TEST(ParseDurationTest, InfiniteAndOverflowingUnits) {
  EXPECT_THAT(Why(ParseDuration("inf", "f", kTimeoutRange).status()),
              HasSubstr("is not a finite number"));
  EXPECT_THAT(Why(ParseDuration("-inf", "f", kTimeoutRange).status()),
              HasSubstr("is not a finite number"));
  EXPECT_THAT(Why(ParseDuration("9999999999999999999h", "f", kTimeoutRange).status()),
              HasSubstr("is too large"));
  EXPECT_THAT(Why(ParseDuration("-1s", "f", kTimeoutRange).status()), HasSubstr("is negative"));
}

TEST(CheckDurationTest, MessagesCarryTheFieldValueAndRange) {
  EXPECT_TRUE(CheckDurationMs(1, "launch_timeout_ms", kTimeoutRange).ok());
  EXPECT_TRUE(CheckDurationMs(kMaxTimeoutMs, "launch_timeout_ms", kTimeoutRange).ok());
  EXPECT_EQ(Why(CheckDurationMs(kMaxTimeoutMs + 1, "launch_timeout_ms", kTimeoutRange)),
            "launch_timeout_ms: 604800001 ms is too large; accepted: 1ms to 168h");
  EXPECT_EQ(Why(CheckDurationMs(INT64_MIN, "step_timeout_ms", kTimeoutRange)),
            "step_timeout_ms: -9223372036854775808 ms is negative; accepted: 1ms to 168h");
  EXPECT_THAT(Why(CheckDuration(absl::InfiniteDuration(), "f", kTimeoutRange)),
              HasSubstr("not finite"));
  EXPECT_TRUE(CheckDuration(absl::Minutes(1), "f", kHeartbeatPeriodRange).ok());
  EXPECT_THAT(Why(CheckDuration(absl::Milliseconds(10), "f", kHeartbeatPeriodRange)),
              HasSubstr("too small; accepted: 100ms to 10m"));
}

TEST(ParseCountTest, OverflowFractionsAndWordsAreRefused) {
  EXPECT_EQ(*ParseCount("16", "-n", 1, 1024), 16);
  for (const char* text : {"99999999999999999999", "1.5", "1e3", "0x10", "nan", "", "-1", "1025"}) {
    EXPECT_EQ(Why(ParseCount(text, "-n", 1, 1024).status()),
              absl::StrCat("-n: '", text, "' is not a whole number from 1 to 1024"))
        << text;
  }
}

TEST(ParseShareTest, NanAndInfinitiesAreRefused) {
  EXPECT_EQ(*ParseShare("0.25", "--share", 0, 1), 0.25);
  for (const char* text : {"nan", "inf", "-inf", "1.5", "-0.1", "1e999"}) {
    EXPECT_EQ(Why(ParseShare(text, "--share", 0, 1).status()),
              absl::StrCat("--share: '", text, "' is not a number from 0 to 1"))
        << text;
  }
  EXPECT_FALSE(CheckShare(std::nan(""), "share", 0, 1).ok());
}

}  // namespace
}  // namespace eb::spec
