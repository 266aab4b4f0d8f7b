// Issue 14 over Gloo on loopback, through ebctl: `--collective a,b` (and
// `all`) runs the collectives one after the other on one communicator (one
// worker per rank, one join), one table each and one verdict; -J FILE
// writes nccl-tests' JSON beside the table; -I 1 adds per-iteration times
// that nccl-tests' analyze_perf_json.py reads; -a picks the row's time.

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testutil/local_cluster.h"

namespace eb::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class MultiCollectiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.StartCoordinator().ok());
    ASSERT_TRUE(cluster_.StartAgent("host0", 2).ok());
    ASSERT_TRUE(cluster_.StartAgent("host1", 2).ok());
  }

  CliResult Run(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"run-test", "--nodes", "host0,host1", "-b", "64",
                                     "-e",       "4K",      "-f",          "4",  "-n",
                                     "3",        "-w",      "1",           "-c", "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    return cluster_.Ebctl(args);
  }

  static nlohmann::json ReadJson(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str(), nullptr, false);
  }

  static int Count(const std::string& text, const std::string& needle) {
    int n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
      ++n;
    }
    return n;
  }

  LocalCluster cluster_;
};

// Sizes of -b 64 -e 4K -f 4.
constexpr int kSizes = 4;

TEST_F(MultiCollectiveTest, TwoCollectivesOneCommunicatorOneTableEachOneVerdict) {
  const std::string file = cluster_.work_dir() + "/seed.json";
  const CliResult result = Run({"--collective", "all_reduce,broadcast", "-J", file});
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  // The table on stdout, one per collective, as two nccl-tests binaries.
  EXPECT_THAT(result.out, HasSubstr("# collective all_reduce,broadcast nranks 4 nodes 2"));
  EXPECT_EQ(Count(result.out, "# Collective test starting: "), 2) << result.out;
  EXPECT_EQ(Count(result.out, "# Collective test concluded: "), 2) << result.out;
  EXPECT_EQ(Count(result.out, "# Out of bounds values : 0 OK"), 2) << result.out;
  EXPECT_LT(result.out.find("# Collective test concluded: all_reduce"),
            result.out.find("# Collective test starting: broadcast"));
  EXPECT_EQ(Count(result.out, "# Result: "), 1) << result.out;
  EXPECT_THAT(result.out, HasSubstr("# Result: PASSED — all_reduce, broadcast over 4 ranks on 2 "
                                    "nodes: 2 collectives x 4 sizes"));
  // Issue 33 item 6: first, as nccl-tests' jsonOutputInit prints it.
  EXPECT_EQ(result.out.rfind("# Writing JSON output to " + file + "\n", 0), 0u) << result.out;

  // The JSON file: nccl-tests' layout, every row tagged.
  const nlohmann::json doc = ReadJson(file);
  ASSERT_TRUE(doc.is_object()) << file;
  EXPECT_EQ(doc["version"], 3);
  EXPECT_EQ(doc["config"]["devices"].size(), 4u);
  EXPECT_EQ(doc["config"]["collectives"], nlohmann::json::parse(R"(["all_reduce","broadcast"])"));
  ASSERT_EQ(doc["results"].size(), 2u * kSizes);
  for (int i = 0; i < 2 * kSizes; ++i) {
    const nlohmann::json& row = doc["results"][i];
    EXPECT_EQ(row["collective"], i < kSizes ? "all_reduce" : "broadcast") << i;
    EXPECT_EQ(row["redop"], i < kSizes ? "sum" : "none") << i;
    EXPECT_EQ(row["out_of_place"]["nwrong"], 0) << i;
    EXPECT_EQ(row["actual_iterations"], 3) << i;
  }
  ASSERT_EQ(doc["collectives"].size(), 2u);
  EXPECT_EQ(doc["collectives"][1]["collective"], "broadcast");
  EXPECT_EQ(doc["collectives"][1]["sizes"], kSizes);

  // One worker per rank ran both: each joined once and swept 2 x 4 sizes.
  const std::string test_id = doc["test_id"].get<std::string>();
  for (int rank = 0; rank < 4; ++rank) {
    const CliResult log = cluster_.Ebctl({"logs", test_id, "--rank", std::to_string(rank)});
    ASSERT_EQ(log.exit_code, 0) << log.err;
    EXPECT_EQ(Count(log.out, "joined the gloo communicator"), 1) << log.out;
    EXPECT_THAT(log.out, HasSubstr(absl::StrCat("finished ", 2 * kSizes, " sizes")));
  }

  // nccl-tests never overwrites: the second run writes FILE.0.
  const CliResult again = Run({"--collective", "broadcast", "-J", file});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr("# Writing JSON output to " + file + ".0\n"));
  // One collective: one table, started and concluded as nccl-tests 2.19
  // does (issue 33 item 6), the plain footer.
  EXPECT_EQ(Count(again.out, "# Collective test starting: broadcast\n"), 1) << again.out;
  EXPECT_EQ(Count(again.out, "# Collective test concluded: broadcast\n"), 1) << again.out;
  EXPECT_LT(again.out.find("# Avg bus bandwidth    : "),
            again.out.find("# Collective test concluded: broadcast"));
  EXPECT_EQ(ReadJson(file + ".0")["results"].size(), static_cast<size_t>(kSizes));
  EXPECT_TRUE(cluster_.WaitForNoWorkers("", absl::Seconds(5)));
}

TEST_F(MultiCollectiveTest, AllSevenWithPerIterationTimingAndTheSlowestRank) {
  const CliResult result = Run({"--collective", "all", "-I", "1", "-a", "3", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json doc = nlohmann::json::parse(result.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << result.out;
  EXPECT_EQ(doc["state"], "passed");
  EXPECT_EQ(doc["config"]["per_iter_timing"], true);
  EXPECT_EQ(doc["config"]["average"], 3);
  ASSERT_EQ(doc["results"].size(), 7u * kSizes);
  ASSERT_EQ(doc["collectives"].size(), 7u);
  for (const nlohmann::json& row : doc["results"]) {
    for (const char* variant : {"out_of_place", "in_place"}) {
      const nlohmann::json& v = row[variant];
      // -a 3: the row's time is the slowest rank's.
      EXPECT_DOUBLE_EQ(v["time"].get<double>(), v["max_time"].get<double>());
      // analyze_perf_json.py's inputs: the per-iteration objects.
      const nlohmann::json& per_iter = row[std::string(variant) + "_per_iter"];
      ASSERT_TRUE(per_iter.is_object()) << row.dump();
      EXPECT_EQ(per_iter["times_us"].size(), 3u);
      EXPECT_EQ(per_iter["per_process_max_times_us"].size(), 4u);
      EXPECT_LE(per_iter["min_us"].get<double>(), per_iter["max_us"].get<double>());
    }
  }
}

TEST_F(MultiCollectiveTest, AnOutputFileThatCannotBeCreatedFailsBeforeTheTest) {
  const CliResult result =
      Run({"--collective", "all_reduce", "-J", cluster_.work_dir() + "/no-such-dir/x.json"});
  EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
  EXPECT_THAT(result.err, HasSubstr("-J/--output-file: cannot create"));
  EXPECT_THAT(result.out, Not(HasSubstr("# Using devices")));  // nothing was started
}

TEST_F(MultiCollectiveTest, PerIterationColumnsInTheTable) {
  const CliResult result = Run({"--collective", "all_reduce", "-I", "1"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("i_min    i_max    i_p99    i_cv%"));
}

}  // namespace
}  // namespace eb::testing
