// ebctl's command-line checks (coordinator/ebctl/input/cli_checks.h):
// SECURITY_FINDINGS cases 11 (empty --nodes lists) and 15 (messages).

#include "coordinator/ebctl/input/cli_checks.h"

#include <string>
#include <vector>

#include "coordinator/ebctl/input/run_test_flags.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::ebctl {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Optional;
using ::testing::StartsWith;

// Case 15: "-f 99999999999999999999" became INT64_MAX; range errors read
// "Value 0 not in range 0.000000 to 1797693...".
TEST(WholeNumberTest, Case15OverflowIsRefusedAndTheRangeReadsWell) {
  EXPECT_EQ(*ParseWholeNumber("2", 0, 100, "-f/--stepfactor"), 2);
  EXPECT_EQ(*ParseWholeNumber("100", 0, 100, "-f/--stepfactor"), 100);
  const auto overflow = ParseWholeNumber("99999999999999999999", 0, 2147483647, "-f/--stepfactor");
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(std::string(overflow.status().message()),
            "-f/--stepfactor: '99999999999999999999' is not a whole number from 0 to 2147483647");
  EXPECT_EQ(std::string(ParseWholeNumber("0", 1, 1000, "").status().message()),
            "'0' is not a whole number from 1 to 1000");
  for (const char* bad : {"101", "-1", "1e3", "10^12", "", "abc", "2.5"}) {
    EXPECT_FALSE(ParseWholeNumber(bad, 0, 100, "--x").ok()) << bad;
  }
}

// Case 11: `--nodes ''`, `--nodes ,,` and `--nodes ' , '` meant "all idle nodes".
TEST(NodeListTest, Case11AnEmptyListIsAnErrorNamingTheFlag) {
  for (const char* empty : {"", ",,", " , ", ","}) {
    const auto nodes = ParseNodeList(empty, "--nodes");
    ASSERT_FALSE(nodes.ok()) << empty;
    EXPECT_THAT(std::string(nodes.status().message()),
                AllOf(StartsWith("--nodes: an empty list"), HasSubstr("leave --nodes out")));
  }
  EXPECT_THAT(*ParseNodeList(" a, b ,c", "--nodes"), ElementsAre("a", "b", "c"));
  EXPECT_THAT(std::string(ParseNodeList("a,../b", "--nodes").status().message()),
              StartsWith("--nodes: "));
  std::string many;
  for (int i = 0; i <= 4096; ++i) many += "n" + std::to_string(i) + ",";
  EXPECT_THAT(std::string(ParseNodeList(many, "--nodes").status().message()),
              StartsWith("--nodes: 4097 names, at most 4096"));
}

TEST(NodeListTest, Case11RunTestRefusesAGivenEmptyList) {
  RunTestFlags flags;
  flags.nodes = " , ";
  flags.nodes_given = true;
  EXPECT_THAT(std::string(BuildSpec(flags).status().message()), StartsWith("--nodes: "));
  flags.nodes = "";
  EXPECT_THAT(std::string(BuildSpec(flags).status().message()), StartsWith("--nodes: "));
  // Left out: every idle node (the coordinator caps it).
  flags.nodes_given = false;
  ASSERT_TRUE(BuildSpec(flags).ok());
  EXPECT_EQ(BuildSpec(flags)->node_names_size(), 0);
}

// Case 15: `ebctl nodez` got "A subcommand is required".
TEST(UnknownCommandTest, Case15NamesTheWord) {
  const std::vector<std::string> commands = {"nodes", "run-test", "jobs"};
  const std::vector<std::string> with_value = {"--coordinator", "--format"};
  EXPECT_THAT(UnknownCommand({"nodez"}, commands, with_value), Optional(std::string("nodez")));
  EXPECT_THAT(UnknownCommand({"--coordinator", "h:1", "frob", "x"}, commands, with_value),
              Optional(std::string("frob")));
  EXPECT_EQ(UnknownCommand({"--coordinator", "h:1", "nodes"}, commands, with_value), std::nullopt);
  EXPECT_EQ(UnknownCommand({"--coordinator=h:1", "jobs", "--limit", "3"}, commands, with_value),
            std::nullopt);
  EXPECT_EQ(UnknownCommand({"--json"}, commands, with_value), std::nullopt);
  EXPECT_EQ(UnknownCommand({}, commands, with_value), std::nullopt);
}

// Issue 33 item 5: nccl-tests' -g 1 -t 1 are accepted with a note; other
// values are refused naming the flag.
TEST(NcclTestsThreadingTest, OneIsANoteAnythingElseIsRefusedNamingTheFlag) {
  absl::StatusOr<std::string> note = NcclTestsThreadingNote("-g/--ngpus", 1);
  ASSERT_TRUE(note.ok()) << note.status();
  EXPECT_THAT(*note, AllOf(StartsWith("-g/--ngpus 1: "), HasSubstr("one rank per GPU")));
  absl::StatusOr<std::string> refused = NcclTestsThreadingNote("-t/--nthreads", 4);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.status().message()),
              AllOf(StartsWith("-t/--nthreads: 4 "), HasSubstr("--workers-per-node")));
  EXPECT_FALSE(NcclTestsThreadingNote("-g/--ngpus", 0).ok());
}

// An id that is not UTF-8 is a usage error naming the argument, before any
// call (it gave a libprotobuf ERROR line and an empty UNIMPLEMENTED).
TEST(ArgumentsUtf8Test, P2_2_11_InvalidUtf8IdIsAUsageError) {
  EXPECT_TRUE(CheckArgumentsUtf8({"show", "t-1", "caf\xc3\xa9"}).ok());
  const absl::Status refused = CheckArgumentsUtf8({"show",
                                                   "t\xff"
                                                   "1"});
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.message()), HasSubstr("argument 2 't\\xff1' is not valid UTF-8"));
}

}  // namespace
}  // namespace eb::ebctl
