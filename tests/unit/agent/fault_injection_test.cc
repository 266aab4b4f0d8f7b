// EB_WORKER_FAULT parsing: every mode, the rank filter and the errors.

#include "agent/worker/fault_injection.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::worker {
namespace {

using Mode = FaultInjection::Mode;
using ::testing::HasSubstr;

FaultInjection ParseOk(const std::string& text) {
  absl::StatusOr<FaultInjection> fault = ParseFaultInjection(text);
  EXPECT_TRUE(fault.ok()) << text << ": " << fault.status();
  return fault.value_or(FaultInjection{});
}

TEST(FaultInjectionTest, EmptyIsNoFault) {
  const FaultInjection fault = ParseOk("");
  EXPECT_EQ(fault.mode, Mode::kNone);
  EXPECT_EQ(fault.rank, -1);
  EXPECT_FALSE(fault.AppliesTo(0));
  EXPECT_FALSE(fault.AppliesTo(5));
}

TEST(FaultInjectionTest, ModesWithoutValue) {
  struct Case {
    const char* text;
    Mode mode;
  };
  for (const Case& c : {Case{"hang_before_register", Mode::kHangBeforeRegister},
                        Case{"hang_before_join", Mode::kHangBeforeJoin},
                        Case{"exit_before_join", Mode::kExitBeforeJoin},
                        Case{"segv_before_register", Mode::kSegvBeforeRegister}}) {
    const FaultInjection fault = ParseOk(c.text);
    EXPECT_EQ(fault.mode, c.mode) << c.text;
    EXPECT_EQ(fault.rank, -1) << c.text;
    EXPECT_EQ(fault.size_index, 0) << c.text;
    // No rank filter: every rank.
    EXPECT_TRUE(fault.AppliesTo(0)) << c.text;
    EXPECT_TRUE(fault.AppliesTo(63)) << c.text;
  }
}

TEST(FaultInjectionTest, ModesWithSizeIndex) {
  FaultInjection fault = ParseOk("crash_at_size=3");
  EXPECT_EQ(fault.mode, Mode::kCrashAtSize);
  EXPECT_EQ(fault.size_index, 3);
  EXPECT_EQ(fault.rank, -1);

  fault = ParseOk("corrupt_at_size=0");
  EXPECT_EQ(fault.mode, Mode::kCorruptAtSize);
  EXPECT_EQ(fault.size_index, 0);
  EXPECT_TRUE(fault.AppliesTo(1));
}

TEST(FaultInjectionTest, RankFilter) {
  FaultInjection fault = ParseOk("crash_at_size=2:rank=1");
  EXPECT_EQ(fault.mode, Mode::kCrashAtSize);
  EXPECT_EQ(fault.size_index, 2);
  EXPECT_EQ(fault.rank, 1);
  EXPECT_TRUE(fault.AppliesTo(1));
  EXPECT_FALSE(fault.AppliesTo(0));
  EXPECT_FALSE(fault.AppliesTo(2));

  fault = ParseOk("hang_before_register:rank=0");
  EXPECT_EQ(fault.mode, Mode::kHangBeforeRegister);
  EXPECT_EQ(fault.rank, 0);
  EXPECT_TRUE(fault.AppliesTo(0));
  EXPECT_FALSE(fault.AppliesTo(1));

  fault = ParseOk("exit_before_join:rank=15");
  EXPECT_TRUE(fault.AppliesTo(15));
  EXPECT_FALSE(fault.AppliesTo(14));
}

TEST(FaultInjectionTest, InvalidInputIsInvalidArgumentNamingTheVariable) {
  for (const char* text : {
           "explode",                   // Unknown mode.
           "Hang_Before_Register",      // Modes are case-sensitive.
           "crash_at_size",             // Needs a size index.
           "crash_at_size=",            // Empty size index.
           "crash_at_size=x",           // Not a number.
           "crash_at_size=-1",          // Negative.
           "corrupt_at_size=1.5",       // Not an integer.
           "hang_before_join=2",        // Takes no value.
           "exit_before_join=0",        // Takes no value.
           "hang_before_join:rank=-1",  // Negative rank.
           "hang_before_join:rank=x",   // Not a number.
           "hang_before_join:rnk=1",    // Misspelt filter.
           "hang_before_join:1",        // Filter without its name.
           "crash_at_size=1:rank=",     // Empty rank.
           ":rank=1",                   // No mode.
       }) {
    const absl::StatusOr<FaultInjection> fault = ParseFaultInjection(text);
    ASSERT_FALSE(fault.ok()) << text << " was accepted";
    EXPECT_EQ(fault.status().code(), absl::StatusCode::kInvalidArgument) << text;
    const std::string message(fault.status().message());
    EXPECT_THAT(message, HasSubstr("EB_WORKER_FAULT")) << text;
    EXPECT_THAT(message, HasSubstr(text)) << text;
  }
}

TEST(FaultInjectionTest, ErrorsSayWhatIsWrong) {
  EXPECT_THAT(std::string(ParseFaultInjection("explode").status().message()),
              HasSubstr("unknown mode"));
  EXPECT_THAT(std::string(ParseFaultInjection("crash_at_size").status().message()),
              HasSubstr("needs '=SIZE_INDEX'"));
  EXPECT_THAT(std::string(ParseFaultInjection("hang_before_join=1").status().message()),
              HasSubstr("takes no value"));
  EXPECT_THAT(std::string(ParseFaultInjection("crash_at_size=-2").status().message()),
              HasSubstr("non-negative integer"));
  EXPECT_THAT(std::string(ParseFaultInjection("exit_before_join:rank=a").status().message()),
              HasSubstr(":rank=N"));
}

// Regression (fixed): a separator with nothing after it is silently accepted:
// "hang_before_join=" parses as hang_before_join (the empty value is taken
// for "no value"), and "crash_at_size=2:" parses as crash_at_size=2 on every
// rank (the empty filter is taken for "no filter"). An operator whose filter
// got lost (EB_WORKER_FAULT=crash_at_size=2:$FILTER with FILTER unset) crashes
// every rank instead of getting an error. Proposed fix in ParseFaultInjection:
// reject a ':' that is present with an empty remainder (test
// text.find(':') != npos rather than !parts.second.empty()), and likewise a
// '=' with an empty value for the modes that take none.
TEST(FaultInjectionTest, TrailingSeparatorWithoutValueIsRejected) {
  for (const char* text : {"hang_before_join=", "hang_before_register:", "crash_at_size=2:"}) {
    const absl::StatusOr<FaultInjection> fault = ParseFaultInjection(text);
    EXPECT_EQ(fault.status().code(), absl::StatusCode::kInvalidArgument) << text;
  }
}

}  // namespace
}  // namespace eb::worker

namespace eb::worker {
namespace {

TEST(FaultInjectionSlowTest, SlowTakesMillisecondsAndARank) {
  absl::StatusOr<FaultInjection> fault = ParseFaultInjection("slow=250:rank=3");
  ASSERT_TRUE(fault.ok()) << fault.status();
  EXPECT_EQ(fault->mode, FaultInjection::Mode::kSlow);
  EXPECT_EQ(fault->slow_ms, 250);
  EXPECT_TRUE(fault->AppliesTo(3));
  EXPECT_FALSE(fault->AppliesTo(2));
  EXPECT_TRUE(ParseFaultInjection("slow=5")->AppliesTo(7));
}

TEST(FaultInjectionSlowTest, SlowNeedsAPositiveValue) {
  for (const char* text : {"slow", "slow=0", "slow=-4", "slow=x"}) {
    absl::StatusOr<FaultInjection> fault = ParseFaultInjection(text);
    ASSERT_FALSE(fault.ok()) << text;
    EXPECT_THAT(std::string(fault.status().message()), ::testing::HasSubstr("slow needs '=MS'"));
  }
}

}  // namespace
}  // namespace eb::worker
