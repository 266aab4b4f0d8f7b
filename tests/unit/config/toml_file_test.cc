// The TOML schema: every value type, errors that name file, line and key,
// unknown keys with suggestions, flag-given keys skipped, missing files,
// and the formatted TOML read back to the same values.

#include "common/config/toml_file.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::common {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr char kPath[] = "/etc/ebnccl/test.toml";

struct Settings {
  std::string name = "default";
  std::string mode = "auto";
  int count = 1;
  bool enabled = false;
  absl::Duration timeout = absl::Seconds(5);
  std::vector<std::string> names;
  std::vector<int> ids;
  StringTable env;
  std::string top = "root";
};

ConfigSchema MakeSchema(Settings* s) {
  ConfigSchema schema;
  schema.String("top", &s->top);
  schema.String("main.name", &s->name).Flag("--name");
  schema.Choice("main.mode", &s->mode, {"auto", "fast"});
  schema.Int("main.count", &s->count, 1, 64).Flag("--count");
  schema.Bool("main.enabled", &s->enabled);
  schema.Duration("main.timeout", &s->timeout).Flag("--timeout-ms");
  schema.AddStringTable(
      "main.env",
      [s](const StringTable& table) {
        s->env = table;
        return absl::OkStatus();
      },
      [s] { return s->env; });
  schema.StringList("lists.names", &s->names);
  schema.IntList("lists.ids", &s->ids, 0, 7);
  return schema;
}

absl::Status ApplyText(const std::string& text, Settings* settings,
                       const std::set<std::string>& skip = {}) {
  auto file = TomlFile::Parse(text, kPath);
  if (!file.ok()) return file.status();
  return MakeSchema(settings).Apply(*file, skip);
}

std::string ErrorOf(const std::string& text) {
  Settings settings;
  const absl::Status status = ApplyText(text, &settings);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << text;
  return std::string(status.message());
}

TEST(ConfigSchemaTest, EveryTypeIsApplied) {
  Settings s;
  ASSERT_TRUE(ApplyText(R"(top = "t"
[main]
name = "node7"
mode = "fast"
count = 8
enabled = true
timeout = "30s"
[main.env]
NCCL_DEBUG = "WARN"
A_VAR = "x=y"
[lists]
names = ["a", "b"]
ids = [0, 7, 3]
)",
                        &s)
                  .ok());
  EXPECT_EQ(s.top, "t");
  EXPECT_EQ(s.name, "node7");
  EXPECT_EQ(s.mode, "fast");
  EXPECT_EQ(s.count, 8);
  EXPECT_TRUE(s.enabled);
  EXPECT_EQ(s.timeout, absl::Seconds(30));
  EXPECT_EQ(s.names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s.ids, (std::vector<int>{0, 7, 3}));
  // Sorted by name.
  EXPECT_EQ(s.env, (StringTable{{"A_VAR", "x=y"}, {"NCCL_DEBUG", "WARN"}}));
}

TEST(ConfigSchemaTest, AbsentKeysKeepTheirDefaults) {
  Settings s;
  ASSERT_TRUE(ApplyText("[main]\ncount = 2\n", &s).ok());
  EXPECT_EQ(s.count, 2);
  EXPECT_EQ(s.name, "default");
  EXPECT_EQ(s.timeout, absl::Seconds(5));
  EXPECT_THAT(s.env, IsEmpty());
}

TEST(ConfigSchemaTest, DottedKeysAndInlineTablesAreTheSameKeys) {
  Settings s;
  ASSERT_TRUE(ApplyText("main.count = 4\nmain.env = { X = \"1\" }\n", &s).ok());
  EXPECT_EQ(s.count, 4);
  EXPECT_EQ(s.env, (StringTable{{"X", "1"}}));
}

TEST(ConfigSchemaTest, DurationsAsStringsOrMilliseconds) {
  const std::pair<std::string, absl::Duration> cases[] = {
      {"\"30s\"", absl::Seconds(30)},         {"\"500ms\"", absl::Milliseconds(500)},
      {"1500", absl::Milliseconds(1500)},     {"\"1m30s\"", absl::Seconds(90)},
      {"\"1.5s\"", absl::Milliseconds(1500)}, {"\"2h\"", absl::Hours(2)},
  };
  for (const auto& [text, expected] : cases) {
    Settings s;
    ASSERT_TRUE(ApplyText("[main]\ntimeout = " + text + "\n", &s).ok()) << text;
    EXPECT_EQ(s.timeout, expected) << text;
  }
}

TEST(ConfigSchemaTest, BadDurationsNameTheKey) {
  EXPECT_EQ(ErrorOf("[main]\ntimeout = \"30 sec\"\n"),
            "/etc/ebnccl/test.toml:2: key 'main.timeout': expected a duration "
            "(\"30s\", "
            "\"500ms\", \"1m30s\" or an integer number of milliseconds), got "
            "string \"30 sec\"");
  EXPECT_THAT(ErrorOf("[main]\ntimeout = 2.5\n"), HasSubstr("got float 2.5"));
  EXPECT_EQ(ErrorOf("[main]\ntimeout = 0\n"),
            "/etc/ebnccl/test.toml:2: key 'main.timeout': must be between 1ms "
            "and 168h, got 0");
  EXPECT_THAT(ErrorOf("[main]\ntimeout = \"-1s\"\n"), HasSubstr("got -1s"));
  EXPECT_THAT(ErrorOf("[main]\ntimeout = \"inf\"\n"), HasSubstr("got inf"));
}

TEST(ConfigSchemaTest, UnknownKeySuggestsTheClosest) {
  EXPECT_EQ(ErrorOf("[main]\nname = \"x\"\ncountt = 3\n"),
            "/etc/ebnccl/test.toml:3: key 'main.countt': unknown key (did you mean "
            "'main.count'?)");
}

TEST(ConfigSchemaTest, UnknownSectionIsReportedOnce) {
  EXPECT_EQ(ErrorOf("\n[mian]\ncount = 3\nname = \"x\"\n"),
            "/etc/ebnccl/test.toml:2: key 'mian': unknown key (did you mean "
            "'main'?)");
}

TEST(ConfigSchemaTest, KeyInTheWrongSectionSuggestsTheRightOne) {
  EXPECT_EQ(ErrorOf("[lists]\nenabled = true\n"),
            "/etc/ebnccl/test.toml:2: key 'lists.enabled': unknown key (did you mean "
            "'main.enabled'?)");
  // A root key that belongs in a section.
  EXPECT_THAT(ErrorOf("count = 3\n"), HasSubstr("(did you mean 'main.count'?)"));
}

TEST(ConfigSchemaTest, FlagSpellingSuggestsTheKey) {
  EXPECT_THAT(ErrorOf("[main]\ntimeout_ms = 5000\n"),
              HasSubstr("key 'main.timeout_ms': unknown key (did you mean 'main.timeout'?)"));
}

TEST(ConfigSchemaTest, ExtraSuffixSuggestsTheKey) {
  EXPECT_THAT(ErrorOf("[main]\nenabled_flag = true\n"),
              HasSubstr("key 'main.enabled_flag': unknown key (did you mean "
                        "'main.enabled'?)"));
}

TEST(ConfigSchemaTest, NothingCloseMeansNoSuggestion) {
  EXPECT_EQ(ErrorOf("[main]\nzzzzzzzzzzzz = 1\n"),
            "/etc/ebnccl/test.toml:2: key 'main.zzzzzzzzzzzz': unknown key");
}

TEST(ConfigSchemaTest, WrongTypesNameTheKeyAndTheValue) {
  EXPECT_EQ(ErrorOf("[main]\n\n\n\n\n\ncount = \"eight\"\n"),
            "/etc/ebnccl/test.toml:7: key 'main.count': expected an integer, "
            "got string "
            "\"eight\"");
  EXPECT_EQ(ErrorOf("[main]\nname = 3\n"),
            "/etc/ebnccl/test.toml:2: key 'main.name': expected a string, got "
            "integer 3");
  EXPECT_EQ(ErrorOf("[main]\nenabled = \"yes\"\n"),
            "/etc/ebnccl/test.toml:2: key 'main.enabled': expected a boolean "
            "(true or false), "
            "got string \"yes\"");
  EXPECT_EQ(ErrorOf("[lists]\nnames = \"a,b\"\n"),
            "/etc/ebnccl/test.toml:2: key 'lists.names': expected a list of "
            "strings, got "
            "string \"a,b\"");
  EXPECT_EQ(ErrorOf("[lists]\nids = 3\n"),
            "/etc/ebnccl/test.toml:2: key 'lists.ids': expected a list of "
            "integers, got "
            "integer 3");
  EXPECT_EQ(ErrorOf("[main]\nenv = \"A=1\"\n"),
            "/etc/ebnccl/test.toml:2: key 'main.env': expected a table of "
            "strings, got "
            "string \"A=1\"");
  EXPECT_EQ(ErrorOf("[main]\nname = [\"x\"]\n"),
            "/etc/ebnccl/test.toml:2: key 'main.name': expected a string, got "
            "an array");
  EXPECT_EQ(ErrorOf("main = 3\n"),
            "/etc/ebnccl/test.toml:1: key 'main': "
            "expected a table (section [main]), got "
            "integer 3");
  EXPECT_THAT(ErrorOf("[[main]]\ncount = 1\n"), HasSubstr("key 'main': expected a table"));
}

TEST(ConfigSchemaTest, ElementsAreReportedAtTheirOwnLine) {
  EXPECT_EQ(ErrorOf("[lists]\nids = [\n  1,\n  \"two\",\n  3,\n]\n"),
            "/etc/ebnccl/test.toml:4: key 'lists.ids[1]': expected an integer, "
            "got string "
            "\"two\"");
  EXPECT_EQ(ErrorOf("[lists]\nnames = [\"a\", 2]\n"),
            "/etc/ebnccl/test.toml:2: key 'lists.names[1]': expected a string, "
            "got integer 2");
  EXPECT_EQ(ErrorOf("[main.env]\nA = \"1\"\nB = 2\n"),
            "/etc/ebnccl/test.toml:3: key 'main.env.B': expected a string, got "
            "integer 2");
}

TEST(ConfigSchemaTest, RangesAndChoicesAreChecked) {
  EXPECT_EQ(ErrorOf("[main]\ncount = 0\n"),
            "/etc/ebnccl/test.toml:2: key 'main.count': must be between 1 and "
            "64, got 0");
  EXPECT_THAT(ErrorOf("[main]\ncount = 99999999999\n"), HasSubstr("got 99999999999"));
  EXPECT_EQ(ErrorOf("[lists]\nids = [1, 9]\n"),
            "/etc/ebnccl/test.toml:2: key 'lists.ids': element 1 must be "
            "between 0 and 7, got 9");
  EXPECT_EQ(ErrorOf("[main]\nmode = \"slow\"\n"),
            "/etc/ebnccl/test.toml:2: key 'main.mode': must be one of auto, "
            "fast, got \"slow\"");
}

TEST(ConfigSchemaTest, EveryProblemIsListedInLineOrder) {
  // toml++ visits keys sorted by name; the report follows the file.
  EXPECT_EQ(ErrorOf("[main]\nname = 1\nzcount = 2\nenabled = 3\n"),
            "/etc/ebnccl/test.toml:2: key 'main.name': expected a string, got "
            "integer 1\n"
            "/etc/ebnccl/test.toml:3: key 'main.zcount': unknown key (did you mean "
            "'main.count'?)\n"
            "/etc/ebnccl/test.toml:4: key 'main.enabled': expected a boolean (true "
            "or false), "
            "got integer 3");
}

TEST(ConfigSchemaTest, FlagGivenKeysAreSkipped) {
  Settings s;
  s.count = 5;  // As if --count 5 had been parsed.
  s.name = "from-flag";
  ASSERT_TRUE(ApplyText("[main]\ncount = 8\nname = \"file\"\nenabled = true\n", &s,
                        {"--count", "main.name"})
                  .ok());
  EXPECT_EQ(s.count, 5);           // Skipped by its flag.
  EXPECT_EQ(s.name, "from-flag");  // Skipped by its key name.
  EXPECT_TRUE(s.enabled);          // Applied.
}

TEST(ConfigSchemaTest, SkippedKeysAreStillTypeChecked) {
  Settings s;
  const absl::Status status = ApplyText("[main]\ncount = \"eight\"\n", &s, {"--count"});
  EXPECT_THAT(std::string(status.message()), HasSubstr("key 'main.count': expected an integer"));
}

TEST(ConfigSchemaTest, SyntaxErrorsNameFileLineAndColumn) {
  auto file = TomlFile::Parse("[main]\ncount = = 3\n", kPath);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(file.status().message()),
              HasSubstr("/etc/ebnccl/test.toml:2:9: syntax error: "));
  auto duplicate = TomlFile::Parse("[main]\ncount = 1\ncount = 2\n", kPath);
  ASSERT_FALSE(duplicate.ok());
  EXPECT_THAT(std::string(duplicate.status().message()), HasSubstr("/etc/ebnccl/test.toml:3:"));
}

TEST(ConfigSchemaTest, SetterErrorsAreWrapped) {
  ConfigSchema schema;
  schema.AddString(
      "a.b", [](const std::string&) { return absl::InvalidArgumentError("no good"); },
      [] { return std::string(); });
  auto file = TomlFile::Parse("[a]\nb = \"x\"\n", "f.toml");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(schema.Apply(*file).message(), "f.toml:2: key 'a.b': no good");
}

TEST(ConfigSchemaTest, CheckedStringsAreCheckedUnlessEmpty) {
  std::string field = "kept";
  ConfigSchema schema;
  schema.String("a.b", &field, [](absl::string_view value) {
    return value == "ok" ? absl::OkStatus() : absl::InvalidArgumentError("not ok");
  });
  auto bad = TomlFile::Parse("[a]\nb = \"x\"\n", "f.toml");
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(schema.Apply(*bad).message(), "f.toml:2: key 'a.b': not ok");
  EXPECT_EQ(field, "kept");
  auto good = TomlFile::Parse("[a]\nb = \"ok\"\n", "f.toml");
  ASSERT_TRUE(good.ok());
  EXPECT_TRUE(schema.Apply(*good).ok());
  EXPECT_EQ(field, "ok");
  auto empty = TomlFile::Parse("[a]\nb = \"\"\n", "f.toml");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(schema.Apply(*empty).ok());
  EXPECT_EQ(field, "");
}

class TomlFileLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/eb_toml_test_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::remove((dir_ + "/a.toml").c_str());
    rmdir(dir_.c_str());
  }
  std::string dir_;
};

TEST_F(TomlFileLoadTest, MissingFileGivenExplicitlyIsAnError) {
  const std::string path = dir_ + "/absent.toml";
  auto file = TomlFile::Load(path, /*required=*/true);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(file.status().message(), path + ": config file does not exist");
}

TEST_F(TomlFileLoadTest, MissingDefaultFileAppliesNothing) {
  auto file = TomlFile::Load(dir_ + "/absent.toml", /*required=*/false);
  ASSERT_TRUE(file.ok());
  EXPECT_FALSE(file->exists());
  Settings s;
  EXPECT_TRUE(MakeSchema(&s).Apply(*file).ok());
  EXPECT_EQ(s.count, 1);
}

TEST_F(TomlFileLoadTest, ExistingFileIsReadAndNamedInErrors) {
  const std::string path = dir_ + "/a.toml";
  std::ofstream(path) << "[main]\ncount = 3\nbogus = 1\n";
  auto file = TomlFile::Load(path, /*required=*/false);
  ASSERT_TRUE(file.ok());
  EXPECT_TRUE(file->exists());
  EXPECT_EQ(file->path(), path);
  Settings s;
  const absl::Status status = MakeSchema(&s).Apply(*file);
  EXPECT_THAT(std::string(status.message()), HasSubstr(path + ":3: key 'main.bogus'"));
}

TEST_F(TomlFileLoadTest, ADirectoryIsNotAFile) {
  auto file = TomlFile::Load(dir_, /*required=*/false);
  ASSERT_FALSE(file.ok());
  EXPECT_THAT(std::string(file.status().message()),
              HasSubstr(dir_ + ": config file is a directory, not a regular file"));
}

TEST(TomlFileTest, Contains) {
  auto file = TomlFile::Parse("[main]\ncount = 1\n[main.env]\nA = \"1\"\n", kPath);
  ASSERT_TRUE(file.ok());
  EXPECT_TRUE(file->Contains("main"));
  EXPECT_TRUE(file->Contains("main.count"));
  EXPECT_TRUE(file->Contains("main.env"));
  EXPECT_TRUE(file->Contains("main.env.A"));
  EXPECT_FALSE(file->Contains("main.name"));
  EXPECT_FALSE(file->Contains("main.count.x"));
  EXPECT_FALSE(TomlFile().Contains("main"));
}

TEST(ConfigSchemaTest, FormattedTomlReadsBackToTheSameValues) {
  Settings s;
  s.top = "top \"quoted\" \\ back\\slash";
  s.name = "tab\there\nnewline \x01 control, ünïcode";
  s.mode = "fast";
  s.count = 64;
  s.enabled = true;
  s.timeout = absl::Milliseconds(1500);
  s.names = {"a", "", "c d"};
  s.ids = {7, 0};
  s.env = {{"A.B", "dotted name"}, {"NCCL_DEBUG", "INFO"}, {"with space", "\"x\""}};
  const std::string text = MakeSchema(&s).FormatToml();
  EXPECT_THAT(text, HasSubstr("[main]\n"));
  EXPECT_THAT(text, HasSubstr("timeout = \"1.5s\"\n"));
  EXPECT_THAT(text, HasSubstr("[main.env]\n\"A.B\" = \"dotted name\"\n"));
  EXPECT_THAT(text, Not(HasSubstr("[]")));  // The root key needs no header.
  Settings back;
  ASSERT_TRUE(ApplyText(text, &back).ok()) << text;
  EXPECT_EQ(back.top, s.top);
  EXPECT_EQ(back.name, s.name);
  EXPECT_EQ(back.mode, s.mode);
  EXPECT_EQ(back.count, s.count);
  EXPECT_EQ(back.enabled, s.enabled);
  EXPECT_EQ(back.timeout, s.timeout);
  EXPECT_EQ(back.names, s.names);
  EXPECT_EQ(back.ids, s.ids);
  EXPECT_EQ(back.env, s.env);
}

TEST(ConfigSchemaTest, EmptyListsAndTablesFormat) {
  Settings s;
  const std::string text = MakeSchema(&s).FormatToml();
  EXPECT_THAT(text, HasSubstr("names = []\n"));
  EXPECT_THAT(text, HasSubstr("[main.env]\n"));
  Settings back;
  back.names = {"x"};
  ASSERT_TRUE(ApplyText(text, &back).ok()) << text;
  EXPECT_THAT(back.names, IsEmpty());
}

TEST(ConfigSchemaTest, KeysAreListedInDeclarationOrder) {
  Settings s;
  const ConfigSchema schema = MakeSchema(&s);
  const auto keys = schema.keys();
  ASSERT_EQ(keys.size(), 9u);
  EXPECT_EQ(keys[0]->name(), "top");
  EXPECT_EQ(keys[3]->name(), "main.count");
  EXPECT_EQ(keys[3]->flag(), "--count");
  EXPECT_EQ(keys[3]->type(), ConfigSchema::Type::kInt);
}

TEST(TomlQuoteTest, Escapes) { EXPECT_EQ(TomlQuote("a\"b\\c\n\x7f"), "\"a\\\"b\\\\c\\n\\u007F\""); }

}  // namespace
}  // namespace eb::common
