// Yardsticks: min(expected, fleet median) as issue 11 says, and the
// refinements of yardstick.h, case by case.
#include "coordinator/validation/yardstick.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::validation {
namespace {

using ::testing::HasSubstr;

TEST(YardstickTest, Median) {
  EXPECT_EQ(Median({}), 0);
  EXPECT_EQ(Median({3}), 3);
  EXPECT_EQ(Median({5, 1, 3}), 3);
  EXPECT_EQ(Median({4, 1, 3, 2}), 2.5);
}

TEST(YardstickTest, BaseByCase) {
  const Expected e{100, "expected 100 (src)"};
  struct Case {
    std::string name;
    std::optional<Expected> expected;
    std::vector<double> best;
    int tests;
    double base;
    bool median;
    bool below;
    std::string basis;
  };
  const Case cases[] = {
      {"expected and a higher median: the expected figure",
       e,
       {110, 108, 112},
       3,
       100,
       true,
       false,
       "min(expected 100, fleet median 110"},
      {"expected and a lower median: the median",
       e,
       {95, 93, 97, 94},
       4,
       94.5,
       true,
       false,
       "min(expected 100, fleet median 94.5"},
      {"median far below, but a quarter reach it: expected",
       e,
       {50, 50, 50, 99, 98, 50, 50, 97},
       8,
       100,
       true,
       false,
       "3 of 8 nodes reach it"},
      {"median far below, nobody reaches it: median, and said",
       e,
       {60, 61, 59, 62},
       4,
       60.5,
       true,
       true,
       "only 0 nodes reach it"},
      {"too few nodes: expected alone", e, {50, 100}, 1, 100, false, false, "expected 100 alone"},
      {"three nodes in one test: still expected alone",
       e,
       {50, 50, 100},
       2,
       100,
       false,
       false,
       "2 so far"},
      {"no expected: the median alone, said",
       std::nullopt,
       {10, 11, 12},
       3,
       11,
       true,
       false,
       "alone: no expected value for pair"},
      {"neither: not judged", std::nullopt, {10, 11}, 1, 0, false, false, "not judged"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Yardstick y = MakeYardstick(c.expected, "pair", c.best, c.tests, 0.10);
    EXPECT_DOUBLE_EQ(y.base_gbps, c.base);
    EXPECT_EQ(y.fleet_median_gbps.has_value(), c.median);
    EXPECT_EQ(y.fleet_below_expected, c.below);
    EXPECT_THAT(y.basis, HasSubstr(c.basis));
  }
}

TEST(YardstickTest, GradesInTwoBands) {
  const Yardstick y = MakeYardstick(Expected{100, "e"}, "pair", {}, 0, 0.10);
  EXPECT_DOUBLE_EQ(y.threshold_gbps(), 90);
  EXPECT_DOUBLE_EQ(y.clear_gbps(), 80);
  EXPECT_EQ(GradeValue(100, y), Grade::kFine);
  EXPECT_EQ(GradeValue(90, y), Grade::kFine);  // at the threshold is not below it
  EXPECT_EQ(GradeValue(89.9, y), Grade::kBorderline);
  EXPECT_EQ(GradeValue(80, y), Grade::kBorderline);
  EXPECT_EQ(GradeValue(79.9, y), Grade::kSlow);
  const Yardstick none = MakeYardstick(std::nullopt, "pair", {}, 0, 0.10);
  EXPECT_EQ(GradeValue(1, none), Grade::kUnjudged);
  EXPECT_TRUE(IsSlow(Grade::kBorderline));
  EXPECT_FALSE(IsSlow(Grade::kUnjudged));
}

}  // namespace
}  // namespace eb::validation
