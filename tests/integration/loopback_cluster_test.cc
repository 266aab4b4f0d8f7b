// A coordinator and two agents (node names host0 and host1, 2 workers each)
// on loopback, driven through ebctl: every collective over Gloo, the JSON
// report checked field by field, and the nccl-tests table.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testutil/local_cluster.h"

namespace eb::testing {
namespace {

using ::testing::HasSubstr;

class LoopbackClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.StartCoordinator().ok());
    ASSERT_TRUE(cluster_.StartAgent("host0", 2).ok());
    ASSERT_TRUE(cluster_.StartAgent("host1", 2).ok());
  }

  // Runs one small sweep and returns the parsed JSON report.
  nlohmann::json RunJson(const std::vector<std::string>& extra, int expected_exit = 0) {
    std::vector<std::string> args = {
        "run-test", "--json", "--nodes", "host0,host1", "-b", "64", "-e", "64K",
        "-f",       "4",      "-n",      "3",           "-w", "1",  "-c", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    CliResult result = cluster_.Ebctl(args);
    EXPECT_EQ(result.exit_code, expected_exit) << result.err;
    nlohmann::json report = nlohmann::json::parse(result.out, nullptr, false);
    EXPECT_FALSE(report.is_discarded()) << result.out << result.err;
    return report;
  }

  LocalCluster cluster_;
};

// Sizes of -b 64 -e 64K -f 4.
const std::vector<int64_t> kSweep = {64, 256, 1024, 4096, 16384, 65536};

struct CollectiveCase {
  const char* name;
  // The nccl-tests count and printed size for a sweep size S on 4 ranks of
  // 4-byte floats.
  int64_t (*count)(int64_t size);
  int64_t (*printed_size)(int64_t size);
  const char* redop;
  int root;
  double busbw_factor;  // busbw / algbw
};

int64_t Whole(int64_t size) { return size / 4; }
int64_t PerRankAligned(int64_t size) { return (size / 4 / 4) & ~int64_t{3}; }
int64_t Same(int64_t size) { return size; }
int64_t AlignedTotal(int64_t size) { return PerRankAligned(size) * 4 * 4; }

const CollectiveCase kCases[] = {
    {"all_reduce", Whole, Same, "sum", -1, 2.0 * 3 / 4},
    {"all_gather", PerRankAligned, AlignedTotal, "none", -1, 3.0 / 4},
    {"reduce_scatter", PerRankAligned, AlignedTotal, "sum", -1, 3.0 / 4},
    {"broadcast", Whole, Same, "none", 0, 1.0},
    {"reduce", Whole, Same, "sum", 0, 1.0},
    {"alltoall", PerRankAligned, AlignedTotal, "none", -1, 3.0 / 4},
    {"sendrecv", Whole, Same, "none", -1, 1.0},
};

TEST_F(LoopbackClusterTest, EveryCollectivePassesWithAFullReport) {
  for (const CollectiveCase& c : kCases) {
    SCOPED_TRACE(c.name);
    nlohmann::json report = RunJson({"--collective", c.name});
    ASSERT_TRUE(report.is_object());
    EXPECT_EQ(report["schema"], "ebnccl.test_report");
    EXPECT_EQ(report["schema_version"], 2);
    EXPECT_EQ(report["state"], "passed");
    EXPECT_EQ(report["exit_code"], 0);
    EXPECT_EQ(report["transport"], "gloo");
    EXPECT_EQ(report["collective"], c.name);
    EXPECT_EQ(report["config"]["nranks"], 4);
    EXPECT_EQ(report["config"]["minimum_bytes"], 64);
    EXPECT_EQ(report["config"]["maximum_bytes"], 65536);
    EXPECT_EQ(report["config"]["iterations"], 3);
    EXPECT_EQ(report["config"]["validation"], 2);
    EXPECT_EQ(report["config"]["datatype"], "float");
    // Rank map: contiguous per node.
    ASSERT_EQ(report["devices"].size(), 4u);
    for (int rank = 0; rank < 4; ++rank) {
      const nlohmann::json& device = report["devices"][rank];
      EXPECT_EQ(device["rank"], rank);
      EXPECT_EQ(device["node"], rank < 2 ? "host0" : "host1");
      EXPECT_EQ(device["node_index"], rank / 2);
      EXPECT_EQ(device["local_rank"], rank % 2);
    }
    ASSERT_EQ(report["results"].size(), kSweep.size());
    for (size_t i = 0; i < kSweep.size(); ++i) {
      const nlohmann::json& row = report["results"][i];
      SCOPED_TRACE(kSweep[i]);
      EXPECT_EQ(row["size"], c.printed_size(kSweep[i]));
      EXPECT_EQ(row["count"], c.count(kSweep[i]));
      EXPECT_EQ(row["type"], "float");
      EXPECT_EQ(row["redop"], c.redop);
      EXPECT_EQ(row["root"], c.root);
      for (const char* variant : {"out_of_place", "in_place"}) {
        const nlohmann::json& v = row[variant];
        EXPECT_EQ(v["nwrong"], 0);
        EXPECT_GT(v["time"].get<double>(), 0.0);
        ASSERT_EQ(v["rank_times"].size(), 4u);
        EXPECT_LE(v["min_time"].get<double>(), v["time"].get<double>());
        EXPECT_GE(v["max_time"].get<double>(), v["time"].get<double>());
        if (row["count"].get<int64_t>() > 0) {
          EXPECT_GT(v["alg_bw"].get<double>(), 0.0);
          EXPECT_NEAR(v["bus_bw"].get<double>(), v["alg_bw"].get<double>() * c.busbw_factor,
                      1e-9 + 1e-6 * v["bus_bw"].get<double>());
        }
      }
    }
    EXPECT_EQ(report["out_of_bounds"]["count"], 0);
    EXPECT_EQ(report["out_of_bounds"]["okay"], true);
    EXPECT_GT(report["average_bus_bandwidth"]["bandwidth"].get<double>(), 0.0);
    EXPECT_TRUE(report["failures"].empty());
  }
  EXPECT_TRUE(cluster_.WaitForNoWorkers("", absl::Seconds(5)));
}

TEST_F(LoopbackClusterTest, TypesAndOpsAreVerified) {
  for (const char* type : {"double", "int32", "int64", "uint8"}) {
    for (const char* op : {"sum", "prod", "max", "min"}) {
      SCOPED_TRACE(absl::StrCat(type, " ", op));
      nlohmann::json report =
          RunJson({"--collective", "all_reduce", "-d", type, "-o", op, "-e", "1K"});
      EXPECT_EQ(report["state"], "passed");
      EXPECT_EQ(report["results"][0]["type"], type);
      EXPECT_EQ(report["results"][0]["redop"], op);
      EXPECT_EQ(report["out_of_bounds"]["count"], 0);
    }
  }
}

TEST_F(LoopbackClusterTest, TablePrintsTheNcclTestsLayout) {
  CliResult result = cluster_.Ebctl({"run-test", "--nodes", "host0,host1", "--collective",
                                     "all_reduce", "-b", "8", "-e", "1M", "-f", "2", "-n", "2"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out,
              HasSubstr("#       size         count      type   redop    root     time"));
  EXPECT_THAT(result.out, HasSubstr("           8             2     float     sum      -1"));
  EXPECT_THAT(result.out, HasSubstr("     1048576        262144     float     sum      -1"));
  EXPECT_THAT(result.out, HasSubstr("# Out of bounds values : 0 OK"));
  EXPECT_THAT(result.out, HasSubstr("# Avg bus bandwidth"));
  EXPECT_THAT(result.out, HasSubstr("Result: PASSED"));
}

TEST_F(LoopbackClusterTest, NodesListsBothAgents) {
  CliResult result = cluster_.Ebctl({"nodes", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  nlohmann::json nodes = nlohmann::json::parse(result.out);
  std::string text = nodes.dump();
  EXPECT_THAT(text, HasSubstr("host0"));
  EXPECT_THAT(text, HasSubstr("host1"));
}

TEST_F(LoopbackClusterTest, TestsAreKeptInHistory) {
  nlohmann::json report = RunJson({"--collective", "broadcast", "-r", "3"});
  ASSERT_EQ(report["state"], "passed");
  const std::string id = report["test_id"];
  CliResult jobs = cluster_.Ebctl({"jobs"});
  EXPECT_EQ(jobs.exit_code, 0);
  EXPECT_THAT(jobs.out, HasSubstr(id));
  CliResult show = cluster_.Ebctl({"show", id, "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  nlohmann::json shown = nlohmann::json::parse(show.out);
  EXPECT_EQ(shown["test_id"], id);
  EXPECT_EQ(shown["results"].size(), kSweep.size());
  EXPECT_EQ(shown["results"][0]["root"], 3);
}

// `tests` is the command's name, `jobs` its earlier one, kept as an alias.
TEST_F(LoopbackClusterTest, TestsAndItsAliasJobsPrintTheSame) {
  nlohmann::json report = RunJson({"--collective", "all_reduce"});
  ASSERT_EQ(report["state"], "passed");
  const std::string id = report["test_id"];
  for (const std::vector<std::string>& format :
       {std::vector<std::string>{}, std::vector<std::string>{"--json"}}) {
    std::vector<std::string> tests_args = {"tests"};
    std::vector<std::string> jobs_args = {"jobs"};
    tests_args.insert(tests_args.end(), format.begin(), format.end());
    jobs_args.insert(jobs_args.end(), format.begin(), format.end());
    CliResult tests = cluster_.Ebctl(tests_args);
    CliResult jobs = cluster_.Ebctl(jobs_args);
    ASSERT_EQ(tests.exit_code, 0) << tests.err;
    EXPECT_EQ(jobs.exit_code, 0) << jobs.err;
    EXPECT_THAT(tests.out, HasSubstr(id));
    EXPECT_EQ(jobs.out, tests.out);
  }
}

// The straggler attribution is stored once when the test finishes: the
// report the run streamed and the one the history keeps carry the same.
// (Since issue 12 it is by arrival, and a healthy run like this one names
// no rank: tests/integration/evidence_test.cc proves both ways.)
TEST_F(LoopbackClusterTest, SlowestRankIsStoredWithTheReport) {
  nlohmann::json report = RunJson({"--collective", "all_gather"});
  ASSERT_EQ(report["state"], "passed");
  CliResult show = cluster_.Ebctl({"show", report["test_id"], "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  nlohmann::json shown = nlohmann::json::parse(show.out);
  EXPECT_EQ(shown["slowest_rank"], report["slowest_rank"]);
  EXPECT_EQ(shown["arrivals"], report["arrivals"]);
  // Four ranks recorded their arrivals at every measurement.
  ASSERT_TRUE(report["arrivals"].is_object()) << report.dump(2);
  EXPECT_EQ(report["arrivals"]["measurements"], 2 * report["results"].size());
  if (report["slowest_rank"].is_object()) {
    EXPECT_GE(report["slowest_rank"]["rank"], 0);
    EXPECT_LT(report["slowest_rank"]["rank"], 4);
  }
}

TEST_F(LoopbackClusterTest, LogsOfARankAreFetchedFromItsNode) {
  nlohmann::json report = RunJson({"--collective", "all_gather"});
  ASSERT_EQ(report["state"], "passed");
  const std::string id = report["test_id"];
  CliResult logs = cluster_.Ebctl({"logs", id, "--rank", "3"});
  ASSERT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_THAT(logs.out, HasSubstr("rank=3"));
  EXPECT_THAT(logs.out, HasSubstr("finished 6 sizes"));
  EXPECT_THAT(logs.err, HasSubstr("host1:"));
  CliResult missing = cluster_.Ebctl({"logs", id, "--rank", "9"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("has ranks 0..3"));
}

}  // namespace
}  // namespace eb::testing
