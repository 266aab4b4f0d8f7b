// The daemons' config files end to end: the real binaries read a file and
// refuse bad ones with the exact "FILE:LINE: key 'KEY': ..." message and
// exit code 2 (what systemd's RestartPreventExitStatus=2 keys on), values
// checked against the host still name where they came from, and
// `eb-agent --check-config` prints the effective configuration and every
// check, failing with 1.

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testutil/local_cluster.h"

namespace eb::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class DaemonConfigTest : public ::testing::Test {
 protected:
  // Writes `text` to a file in the cluster's directory; returns its path.
  std::string WriteConfig(const std::string& name, const std::string& text) {
    std::string path = absl::StrCat(cluster_.work_dir(), "/", name);
    std::ofstream(path) << text;
    return path;
  }

  LocalCluster cluster_;
};

TEST_F(DaemonConfigTest, AgentFileErrorsNameFileLineAndKey) {
  const std::string path = WriteConfig("agent.toml",
                                       "[agent]\n"
                                       "coordinator = \"127.0.0.1:1\"\n"
                                       "workerz = 3\n"
                                       "\n"
                                       "[metrics]\n"
                                       "listen = \"127.0.0.1:notaport\"\n");
  CliResult result = cluster_.Run("eb-agent", {"--config", path});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_THAT(result.err, HasSubstr(absl::StrCat(path,
                                                 ":3: key 'agent.workerz': unknown key "
                                                 "(did you mean 'agent.workers'?)")));
  EXPECT_THAT(result.err,
              HasSubstr(absl::StrCat(path,
                                     ":6: key 'metrics.listen': '127.0.0.1:notaport' is not "
                                     "a valid address: port 'notaport' is not a number")));
}

TEST_F(DaemonConfigTest, CoordinatorFileErrorsNameFileLineAndKey) {
  const std::string path = WriteConfig("coordinator.toml",
                                       "[heartbeat]\n"
                                       "period = \"soon\"\n");
  CliResult result = cluster_.Run("eb-coordinator", {"--config", path});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_THAT(result.err, HasSubstr(absl::StrCat(path, ":2: key 'heartbeat.period': ")));
}

// A bad flag value is a usage error (2) like a bad file, whatever CLI11's
// own code for it would be.
TEST_F(DaemonConfigTest, FlagValuesOutOfRangeExitTwo) {
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{"eb-agent", "--config", "/dev/null", "--workers", "2000"},
        std::vector<std::string>{"eb-agent", "--config", "/dev/null", "--no-such-flag"},
        std::vector<std::string>{"eb-coordinator", "--config", "/dev/null", "--heartbeat-period-ms",
                                 "0"}}) {
    CliResult result =
        cluster_.Run(argv.front(), std::vector<std::string>(argv.begin() + 1, argv.end()));
    EXPECT_EQ(result.exit_code, 2) << argv[3] << ": " << result.err;
    EXPECT_THAT(result.err, HasSubstr(argv[3])) << result.err;
  }
}

TEST_F(DaemonConfigTest, MissingExplicitConfigIsAnError) {
  const std::string path = absl::StrCat(cluster_.work_dir(), "/absent.toml");
  CliResult result = cluster_.Run("eb-agent", {"--config", path, "--coordinator", "x:1"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_THAT(result.err, HasSubstr(path));
}

// A GPU index from the file is checked against the host at start: the
// error names the file's line, not a flag that was never given.
TEST_F(DaemonConfigTest, GpuFromTheFileThatTheHostLacksNamesTheKey) {
  const std::string path = WriteConfig("agent.toml",
                                       "[agent]\n"
                                       "coordinator = \"127.0.0.1:1\"\n"
                                       "gpus = [1023]\n");
  CliResult result =
      cluster_.Run("eb-agent", {"--config", path, "--run-dir", cluster_.work_dir() + "/run"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_THAT(result.err,
              HasSubstr(absl::StrCat(path, ":3: key 'agent.gpus': GPU 1023 does not exist")));

  result = cluster_.Run(
      "eb-agent", {"--config", path, "--gpus", "1022", "--run-dir", cluster_.work_dir() + "/run"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_THAT(result.err, HasSubstr("--gpus: GPU 1022 does not exist"));
}

TEST_F(DaemonConfigTest, CheckConfigPrintsTheConfigAndEveryCheck) {
  const std::string path = WriteConfig("agent.toml",
                                       "[agent]\n"
                                       "coordinator = \"127.0.0.1:1\"\n"
                                       "node_name = \"checked\"\n"
                                       "workers = 3\n"
                                       "gpus = [1023]\n");
  // Flag > file: --workers wins over agent.workers.
  CliResult result =
      cluster_.Run("eb-agent", {"--config", path, "--workers", "2", "--check-config"});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr("node_name = \"checked\""));
  EXPECT_THAT(result.out, HasSubstr("workers = 2"));
  EXPECT_THAT(result.out, HasSubstr("ok    node_name: checked"));
  // Unreachable coordinator and missing GPU are both reported, not just
  // the first problem.
  EXPECT_THAT(result.out, HasSubstr("FAIL  coordinator: 127.0.0.1:1"));
  EXPECT_THAT(result.out, HasSubstr("FAIL  gpus: GPU 1023 does not exist"));
  EXPECT_THAT(result.out, HasSubstr("worker_binary: "));
}

TEST_F(DaemonConfigTest, CheckConfigPassesAgainstARunningCoordinator) {
  ASSERT_TRUE(cluster_.StartCoordinator().ok());
  const std::string path = WriteConfig(
      "agent.toml", absl::StrCat("[agent]\ncoordinator = \"", cluster_.coordinator_address(),
                                 "\"\ntransport = \"gloo\"\n[network]\nbootstrap_address = "
                                 "\"127.0.0.1\"\n"));
  CliResult result = cluster_.Run(
      "eb-agent", {"--config", path, "--run-dir", cluster_.work_dir() + "/run", "--check-config"});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr("ok    coordinator: "));
  EXPECT_THAT(result.out, Not(HasSubstr("FAIL")));
}

}  // namespace
}  // namespace eb::testing
