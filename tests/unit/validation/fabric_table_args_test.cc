// validation_sim's fat-tree tables read their options through one parser
// (fabric_table_args.h): a value that is not a number is a usage error, not
// 0 fleets (it was std::atoi's 0).

#include "tests/unit/validation/fabric_table_args.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace eb::validation::sim {
namespace {

std::optional<FabricTableArgs> Parse(std::vector<std::string> words, bool takes_noise) {
  words.insert(words.begin(), {"validation_sim", "--fabric"});
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  return ParseFabricTableArgs(static_cast<int>(argv.size()), argv.data(), 7, takes_noise, "usage");
}

TEST(FabricTableArgsTest, ReadsSeedsSizesAndNoise) {
  const auto args = Parse({"--seeds", "3", "--size", "64", "--size", "256", "--noise"}, true);
  ASSERT_TRUE(args.has_value());
  EXPECT_EQ(args->seeds, 3);
  EXPECT_EQ(args->sizes, (std::vector<int>{64, 256}));
  EXPECT_TRUE(args->noise);
  EXPECT_FALSE(args->show.has_value());
  EXPECT_EQ(Parse({}, false)->seeds, 7);
}

TEST(FabricTableArgsTest, NotANumberAMissingValueOrAnUnknownOptionIsAUsageError) {
  EXPECT_FALSE(Parse({"--seeds", "x"}, false).has_value());
  EXPECT_FALSE(Parse({"--seeds"}, false).has_value());
  EXPECT_FALSE(Parse({"--size", "64k"}, false).has_value());
  EXPECT_FALSE(Parse({"--show", "64", "1"}, false).has_value());
  EXPECT_FALSE(Parse({"--noise"}, false).has_value());  // where the table takes none
  EXPECT_FALSE(Parse({"--bogus"}, false).has_value());
}

TEST(FabricTableArgsTest, ShowDrawsTheNamedFleet) {
  const auto args = Parse({"--show", "64", "1", "3"}, false);
  ASSERT_TRUE(args.has_value());
  ASSERT_TRUE(args->show.has_value());
  EXPECT_EQ(args->show->shape.n, 64);
  EXPECT_EQ(args->show->fault_case, static_cast<FabricCase>(1));
}

}  // namespace
}  // namespace eb::validation::sim
