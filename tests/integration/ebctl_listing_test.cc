// ebctl's listing and streaming outputs against real daemons on loopback:
// `run-test --json-lines` streams one object per row then the report,
// `jobs --node/--state/--since` filters, `--json` and `--format json`
// work after every subcommand (logs included), and `ebctl version` shows
// the coordinator's version; `ebctl topology` shows the fabric the
// coordinator loaded and what the agents disagree with (issue 31).

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "common/version/version.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testutil/local_cluster.h"

namespace eb::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

class EbctlListingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.StartCoordinator().ok());
    ASSERT_TRUE(cluster_.StartAgent("host0", 2).ok());
    ASSERT_TRUE(cluster_.StartAgent("host1", 2).ok());
  }

  // The ids of `ebctl jobs --json ARGS...`.
  std::vector<std::string> JobIds(std::vector<std::string> args) {
    args.insert(args.begin(), {"jobs", "--json"});
    CliResult result = cluster_.Ebctl(args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    json list = json::parse(result.out, nullptr, false);
    std::vector<std::string> ids;
    if (!list.is_object()) return ids;
    for (const json& test : list["tests"]) ids.push_back(test["test_id"]);
    return ids;
  }

  LocalCluster cluster_;
};

TEST_F(EbctlListingTest, JsonLinesThenFiltersLogsAndVersion) {
  // --- run-test --json-lines: 4 sizes (8, 16, 32, 64), then the report.
  CliResult run = cluster_.Ebctl(
      {"run-test", "--json-lines", "--nodes", "host0,host1", "-b", "8", "-e", "64", "-f", "2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::vector<std::string> lines = absl::StrSplit(run.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 5u) << run.out;
  std::string test_id;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    json row = json::parse(lines[i], nullptr, false);
    ASSERT_TRUE(row.is_object()) << lines[i];
    EXPECT_EQ(row["schema"], "ebnccl.test_row");
    EXPECT_EQ(row["size"], 8 << i);
    EXPECT_EQ(row["ranks"], 4);
    test_id = row["test_id"];
  }
  json report = json::parse(lines.back(), nullptr, false);
  EXPECT_EQ(report["schema"], "ebnccl.test_report") << lines.back();
  EXPECT_EQ(report["test_id"], test_id);
  EXPECT_EQ(report["state"], "passed");
  EXPECT_FALSE(report.contains("results"));
  // It is one output or the other.
  EXPECT_EQ(cluster_.Ebctl({"run-test", "--json-lines", "--json"}).exit_code, 2);

  // A second test on host0 only.
  CliResult single =
      cluster_.Ebctl({"run-test", "--json", "--nodes", "host0", "-b", "8", "-e", "8"});
  ASSERT_EQ(single.exit_code, 0) << single.err;
  const std::string single_id = json::parse(single.out)["test_id"];

  // --- jobs filters.
  EXPECT_THAT(JobIds({}), ::testing::ElementsAre(single_id, test_id));
  EXPECT_THAT(JobIds({"--node", "host1"}), ::testing::ElementsAre(test_id));
  EXPECT_THAT(JobIds({"--node", "host0", "--limit", "1"}), ::testing::ElementsAre(single_id));
  EXPECT_THAT(JobIds({"--state", "failed,timed_out"}), ::testing::ElementsAre());
  EXPECT_THAT(JobIds({"--state", "passed", "--since", "10m"}).size(), 2u);
  EXPECT_THAT(JobIds({"--since", "2099-01-01T00:00:00Z"}), ::testing::ElementsAre());
  CliResult bad = cluster_.Ebctl({"jobs", "--state", "happy"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--state: 'happy'"));
  // The table's START column holds the whole timestamp.
  CliResult table = cluster_.Ebctl({"jobs"});
  std::vector<std::string> rows = absl::StrSplit(table.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(rows.size(), 3u) << table.out;
  const size_t collective = rows[0].find("COLLECTIVE");
  EXPECT_EQ(rows[1].substr(collective, 10), "all_reduce") << table.out;

  // --- logs: --json and --format json after the subcommand.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"logs", test_id, "--rank", "0", "--json"},
        std::vector<std::string>{"logs", "--json", test_id, "--rank", "0"},
        std::vector<std::string>{"logs", test_id, "--rank", "0", "--format", "json"},
        std::vector<std::string>{"--json", "logs", test_id, "--rank", "0"}}) {
    CliResult logs = cluster_.Ebctl(args);
    EXPECT_EQ(logs.exit_code, 0) << logs.err;
    json doc = json::parse(logs.out, nullptr, false);
    EXPECT_EQ(doc["test_id"], test_id) << logs.out.substr(0, 500);
    EXPECT_EQ(doc["rank"], 0);
  }

  // --- version: ebctl's and the coordinator's.
  CliResult version = cluster_.Ebctl({"version"});
  EXPECT_EQ(version.exit_code, 0) << version.err;
  EXPECT_THAT(version.out, HasSubstr(std::string("ebctl ") + kVersion + "\n"));
  EXPECT_THAT(version.out, HasSubstr(std::string("coordinator ") + kVersion + " ("));
  CliResult version_json = cluster_.Ebctl({"version", "--json"});
  json doc = json::parse(version_json.out, nullptr, false);
  EXPECT_EQ(doc["schema"], "ebnccl.version") << version_json.out;
  EXPECT_EQ(doc["ebctl"], kVersion);
  EXPECT_EQ(doc["coordinator"], kVersion);
}

// [topology] (issue 31): the coordinator loads the map named by
// --topology-file and `ebctl topology` names what it and the agents
// disagree on, exit 7; a bad map stops the coordinator, exit 2, naming the
// file and the line.
TEST(EbctlTopologyTest, ShowsTheFabricAndTheDisagreements) {
  LocalCluster cluster;
  const std::string map = cluster.work_dir() + "/fabric.map";
  std::ofstream(map) << "# host9 has no agent; host1 no cable\n"
                        "[[cable]]\nnode = \"host0\"\nhca = \"mlx5_0\"\nleaf = \"leaf-a\"\n"
                        "leaf_port = 1\n"
                        "[[cable]]\nnode = \"host9\"\nhca = \"mlx5_0\"\nleaf = \"leaf-b\"\n"
                        "leaf_port = 1\n"
                        "[[uplink]]\nleaf = \"leaf-a\"\nleaf_port = 33\nspine = \"spine-1\"\n"
                        "spine_port = 1\n"
                        "[[uplink]]\nleaf = \"leaf-b\"\nleaf_port = 33\nspine = \"spine-1\"\n"
                        "spine_port = 2\n";
  std::vector<std::string> flags = LocalCluster::FastCoordinatorFlags();
  flags.push_back("--topology-file=" + map);
  ASSERT_TRUE(cluster.StartCoordinator(flags).ok());
  ASSERT_TRUE(cluster.StartAgent("host0", 1).ok());
  ASSERT_TRUE(cluster.StartAgent("host1", 1).ok());

  CliResult text = cluster.Ebctl({"topology"});
  EXPECT_EQ(text.exit_code, 7) << text.out << text.err;
  EXPECT_THAT(text.out, HasSubstr("(toml): 2 leaves, 1 spines, 2 uplinks, 2 nodes"));
  EXPECT_THAT(text.out, HasSubstr("host9: in the topology, no agent of that name"));
  EXPECT_THAT(text.out, HasSubstr("host1: an agent, no cable in the topology"));
  CliResult doc = cluster.Ebctl({"topology", "--json"});
  EXPECT_EQ(doc.exit_code, 7);
  const json topology = json::parse(doc.out, nullptr, false);
  ASSERT_TRUE(topology.is_object()) << doc.out;
  EXPECT_EQ(topology["schema"], "ebnccl.topology");
  EXPECT_EQ(topology["loaded"], true);
  EXPECT_EQ(topology["file"], map);
  EXPECT_EQ(topology["mismatches"]["nodes_not_in_fleet"], json::array({"host9"}));
  EXPECT_EQ(topology["mismatches"]["nodes_not_in_topology"], json::array({"host1"}));

  std::ofstream(map) << "[[cable]]\nnode = \"host0\"\nbogus = 1\n";
  CliResult refused = cluster.Run(
      "eb-coordinator",
      {kNoConfigFile, "--listen=127.0.0.1:0", "--history-path", "", "--topology-file=" + map});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("topology.file: " + map + ": topology line 3"));
}

}  // namespace
}  // namespace eb::testing
