#include "coordinator/ebctl/output/float_format.h"

#include "gtest/gtest.h"

namespace eb::ebctl {
namespace {

// Expected strings written by hand from nccl-tests' getFloatStr cascade.
TEST(FormatFloatFieldTest, TwoDecimalsWhenTheyFit) {
  EXPECT_EQ(FormatFloatField(10.5, 7), "  10.50");
  EXPECT_EQ(FormatFloatField(1234.56, 7), "1234.56");
  EXPECT_EQ(FormatFloatField(0.000762, 6), "  0.00");
  EXPECT_EQ(FormatFloatField(108.72, 6), "108.72");
}

TEST(FormatFloatFieldTest, FewerDecimalsAsTheValueGrows) {
  EXPECT_EQ(FormatFloatField(12345.678, 7), "12345.7");
  EXPECT_EQ(FormatFloatField(1234.5678, 6), "1234.6");
  EXPECT_EQ(FormatFloatField(99999.999, 7), " 100000");
  EXPECT_EQ(FormatFloatField(123456.4, 6), "123456");
}

TEST(FormatFloatFieldTest, ExponentFallback) {
  EXPECT_EQ(FormatFloatField(123456789.0, 7), "1.2e+08");
  EXPECT_EQ(FormatFloatField(12345678.9, 6), " 1e+07");
}

TEST(FormatFloatFieldTest, NeverTruncatesAWrongNumber) {
  // nccl-tests would print "1.0e+10" here.
  EXPECT_EQ(FormatFloatField(1e100, 7), "1.0e+100");
}

}  // namespace
}  // namespace eb::ebctl
