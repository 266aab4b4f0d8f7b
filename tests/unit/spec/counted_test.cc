// Counts and their nouns (common/spec/counted.h, issue 33 item 8: "1 nodes",
// "1 pairs tested of 6").

#include "common/spec/counted.h"

#include "gtest/gtest.h"

namespace eb::spec {
namespace {

TEST(CountedTest, PluralByTheCount) {
  EXPECT_EQ(Counted(1, "node"), "1 node");
  EXPECT_EQ(Counted(0, "node"), "0 nodes");
  EXPECT_EQ(Counted(2, "node"), "2 nodes");
  EXPECT_EQ(Counted(-1, "degree"), "-1 degree");
  EXPECT_EQ(Counted(1, "process", "processes"), "1 process");
  EXPECT_EQ(Counted(3, "process", "processes"), "3 processes");
  EXPECT_EQ(Counted(1, "bad path"), "1 bad path");
  EXPECT_EQ(Noun(1, "pair"), "pair");
  EXPECT_EQ(Noun(6, "pair"), "pairs");
}

}  // namespace
}  // namespace eb::spec
