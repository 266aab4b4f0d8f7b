#include "coordinator/ebctl/output/tests_table.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/ebctl/test_reports.h"

namespace eb::ebctl {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::ElementsAre;

std::vector<std::string> TestsTableLines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

TEST(TestListTableTest, HeaderThenOneLinePerTestInReplyOrder) {
  v1::ListTestsReply reply;
  v1::TestReport* failed = reply.add_tests();
  *failed = testing::TwoRankReport();
  failed->clear_results();
  v1::TestReport* running = reply.add_tests();
  running->set_test_id("t-20261129-160000-0001");
  running->set_state(v1::TEST_STATE_RUNNING);
  running->mutable_spec()->set_collective(v1::COLLECTIVE_BROADCAST);
  running->mutable_spec()->add_node_names("gpu-01");
  EXPECT_THAT(
      TestsTableLines(TestListTable(reply)),
      ElementsAre(
          "TEST                        START                     COLLECTIVE      STATE       "
          "RANKS  NODES                     SUMMARY",
          "t-20261129-154501-3f2a      2026-11-29T15:45:01.123Z  all_reduce      failed      "
          "    2  host1,host2               rank 1 on host2 was killed by signal 9",
          "t-20261129-160000-0001      1970-01-01T00:00:00.000Z  broadcast       running     "
          "    0  gpu-01                    "));
}

// Every column of a row starts where its header word starts: the START
// column holds the whole 24-character timestamp (it was 20 wide).
TEST(TestListTableTest, ColumnsStartUnderTheirHeaders) {
  v1::ListTestsReply reply;
  *reply.add_tests() = testing::TwoRankReport();
  const std::vector<std::string> lines = TestsTableLines(TestListTable(reply));
  ASSERT_EQ(lines.size(), 2u);
  for (const char* header : {"START", "COLLECTIVE", "STATE", "NODES", "SUMMARY"}) {
    const size_t column = lines[0].find(header);
    ASSERT_NE(column, std::string::npos) << header;
    EXPECT_NE(lines[1][column], ' ') << header << " in: " << lines[1];
    EXPECT_EQ(lines[1][column - 1], ' ') << header << " in: " << lines[1];
  }
}

// A test of several collectives lists them all, in run order, and the
// column widens so that every row's columns still start under their headers.
TEST(TestListTableTest, ATestOfSeveralCollectivesListsThemAll) {
  v1::ListTestsReply reply;
  *reply.add_tests() = testing::TwoRankReport();
  v1::TestReport& several = *reply.add_tests();
  several = testing::TwoRankReport();
  several.mutable_spec()->add_collectives(v1::COLLECTIVE_ALL_REDUCE);
  several.mutable_spec()->add_collectives(v1::COLLECTIVE_BROADCAST);
  several.mutable_spec()->add_collectives(v1::COLLECTIVE_REDUCE_SCATTER);
  const std::vector<std::string> lines = TestsTableLines(TestListTable(reply));
  ASSERT_EQ(lines.size(), 3u);
  const size_t column = lines[0].find("COLLECTIVE");
  EXPECT_EQ(lines[1].substr(column, 11), "all_reduce ");
  EXPECT_EQ(lines[2].substr(column, 37), "all_reduce,broadcast,reduce_scatter  ");
  for (const char* header : {"STATE", "NODES", "SUMMARY"}) {
    const size_t at = lines[0].find(header);
    for (size_t row = 1; row < lines.size(); ++row) {
      EXPECT_NE(lines[row][at], ' ') << header << " in: " << lines[row];
      EXPECT_EQ(lines[row][at - 1], ' ') << header << " in: " << lines[row];
    }
  }
}

TEST(TestListTableTest, NoTestsIsJustTheHeader) {
  EXPECT_THAT(TestsTableLines(TestListTable({})), ElementsAre(::testing::StartsWith("TEST  ")));
}

}  // namespace
}  // namespace eb::ebctl
