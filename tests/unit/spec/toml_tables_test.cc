#include "common/spec/toml_tables.h"

#include <cstdint>
#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::spec {
namespace {

using ::testing::HasSubstr;

const TomlTablesSchema kSchema{"sample", {"node", "link"}, 20, 64, 3};

std::string ErrorOf(const std::string& text) {
  absl::StatusOr<TomlTables> tables = ParseTomlTables(text, kSchema);
  if (tables.ok()) {
    ADD_FAILURE() << "read: " << text;
    return "";
  }
  EXPECT_EQ(tables.status().code(), absl::StatusCode::kInvalidArgument) << text;
  return std::string(tables.status().message());
}

TEST(TomlTablesTest, ReadsTopKeysThenEntriesWithTheirLines) {
  absl::StatusOr<TomlTables> tables = ParseTomlTables(R"(# a comment
version = 3
[[node]]   # trailing comment
name = "a \"b\" # not a comment\t\n"
count = 1_024
rate = -2.5e3
[[ link ]]
name = "l"
)",
                                                      kSchema);
  ASSERT_TRUE(tables.ok()) << tables.status();
  ASSERT_EQ(tables->top.size(), 1u);
  EXPECT_EQ(std::get<int64_t>(tables->top.at("version").value), 3);
  ASSERT_EQ(tables->entries.size(), 2u);
  const TomlEntry& node = tables->entries[0];
  EXPECT_EQ(node.table, "node");
  EXPECT_EQ(node.line, 3);
  EXPECT_EQ(std::get<std::string>(node.keys.at("name").value), "a \"b\" # not a comment\t\n");
  EXPECT_EQ(node.keys.at("name").line, 4);
  EXPECT_EQ(std::get<int64_t>(node.keys.at("count").value), 1024);
  EXPECT_EQ(std::get<double>(node.keys.at("rate").value), -2500);
  EXPECT_EQ(tables->entries[1].table, "link");
  EXPECT_TRUE(ParseTomlTables("", kSchema).ok());
}

TEST(TomlTablesTest, RefusesWhatIsNotTheSubsetNamingTheFileAndLine) {
  const std::pair<std::string, std::string> cases[] = {
      {"[node]\n", "sample line 1: unknown table [node] (expected [[node]] or [[link]])"},
      {"[[other]]\n", "sample line 1: unknown table [[other]]"},
      {"[[]]\n", "sample line 1: unknown table"},
      {"[[node]]\nname = \"a\"\nname = \"b\"\n", "sample line 3: key 'name' given twice"},
      {"version = 1\nversion = 1\n", "sample line 2: key 'version' given twice"},
      {"[[node]]\njust words\n", "sample line 2: expected key = value"},
      {"[[node]]\n= 5\n", "sample line 2: key '' is not letters"},
      {"[[node]]\na b = 5\n", "sample line 2: key 'a b' is not letters"},
      {"[[node]]\nname =\n", "sample line 2: a key has no value"},
      {"[[node]]\nname = \"open\n", "sample line 2: unterminated string"},
      {"[[node]]\nname = \"a\" b\n", "sample line 2: text after the value"},
      {"[[node]]\nname = \"\\x\"\n", "sample line 2: unsupported escape \\x"},
      {"[[node]]\nname = \"a\x1b[31m\"\n", "sample line 2: a control character in a string"},
      {"[[node]]\nname = fast\n", "sample line 2: 'fast' is neither a string nor a number"},
      {"[[node]]\ncount = 99999999999999999999\n", "sample line 2: integer 99999999999999999999"},
      {"[[node]]\n" + std::string(70, '#') + "\n", "sample line 2: longer than 64 bytes"},
      {std::string(21, '\n'), "sample line 21: more than 20 lines"},
      {"[[node]]\n[[node]]\n[[node]]\n[[node]]\n", "sample line 4: more than 3 [[tables]]"},
  };
  for (const auto& [text, error] : cases) {
    SCOPED_TRACE(text);
    EXPECT_THAT(ErrorOf(text), HasSubstr(error));
  }
}

TEST(TomlTablesTest, AccessorsCheckTypeAndRangeNamingTheKeysLine) {
  absl::StatusOr<TomlTables> tables = ParseTomlTables(
      "version = 2\n[[node]]\nname = \"a\"\ncount = 8\nwhole = 8.0\nhalf = 8.5\nbig = 1e300\n"
      "nan = nan\ncolour = \"red\"\n",
      kSchema);
  ASSERT_TRUE(tables.ok()) << tables.status();
  const TomlEntry& node = tables->entries.at(0);
  EXPECT_EQ(*TomlString(kSchema, node, "name"), "a");
  EXPECT_EQ(*TomlInteger(kSchema, node, "count", 1, 8), 8);
  EXPECT_EQ(*TomlPositiveNumber(kSchema, node, "whole", 1e6, /*whole=*/true), 8);
  EXPECT_EQ(*TomlPositiveNumber(kSchema, node, "half", 1e6, /*whole=*/false), 8.5);
  EXPECT_TRUE(HasTomlKey(node, "name"));
  EXPECT_FALSE(HasTomlKey(node, "missing"));
  const std::pair<absl::Status, std::string> cases[] = {
      {TomlString(kSchema, node, "count").status(), "line 4: [[node]] count must be a string"},
      {TomlString(kSchema, node, "missing").status(), "line 2: [[node]] entry needs missing"},
      {TomlInteger(kSchema, node, "count", 1, 4).status(), "line 4: [[node]] count 8 outside 1..4"},
      {TomlInteger(kSchema, node, "whole", 1, 9).status(),
       "line 5: [[node]] whole must be an integer"},
      {TomlPositiveNumber(kSchema, node, "half", 1e6, true).status(),
       "line 6: [[node]] half must be a positive integer up to 1000000"},
      {TomlPositiveNumber(kSchema, node, "big", 1e6, false).status(),
       "line 7: [[node]] big must be a positive number up to 1000000"},
      {TomlPositiveNumber(kSchema, node, "nan", 1e6, false).status(), "line 8: [[node]] nan must"},
      {OnlyTomlKeys(kSchema, node, {"name", "count", "whole", "half", "big", "nan"}),
       "line 9: unknown key 'colour' in [[node]]"},
      {CheckTomlVersion(kSchema, *tables, 1), "line 1: version must be 1"},
  };
  for (const auto& [status, error] : cases) {
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << error;
    EXPECT_THAT(std::string(status.message()), HasSubstr(error));
  }
  EXPECT_TRUE(CheckTomlVersion(kSchema, *tables, 2).ok());
  absl::StatusOr<TomlTables> stray = ParseTomlTables("colour = 1\n", kSchema);
  ASSERT_TRUE(stray.ok());
  EXPECT_THAT(std::string(CheckTomlVersion(kSchema, *stray, 1).message()),
              HasSubstr("line 1: key 'colour' outside [[node]] or [[link]]"));
}

}  // namespace
}  // namespace eb::spec
