// The daemons' start-up faces strange files and stops when asked (issue 32,
// item 4; P2-2.13): a FIFO given as the config, TLS or baselines file is
// refused at once with an error naming it (it used to hang: open() waited
// for a writer, and SIGTERM/SIGINT were blocked, so only SIGKILL ended the
// daemon); and SIGTERM during a start that waits (the worker probe of the
// agent) ends the daemon promptly with a message saying where it was.

#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/process/posix_process_launcher.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testutil/local_cluster.h"

extern char** environ;

namespace eb::testing {
namespace {

using ::testing::HasSubstr;

// Far below what a hang would take, far above a refusal's milliseconds.
constexpr absl::Duration kPrompt = absl::Seconds(20);

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class StartupStopTest : public ::testing::Test {
 protected:
  std::string Fifo(const std::string& name) {
    const std::string path = absl::StrCat(cluster_.work_dir(), "/", name);
    EXPECT_EQ(mkfifo(path.c_str(), 0600), 0);
    return path;
  }

  LocalCluster cluster_;
};

TEST_F(StartupStopTest, P2_2_13_FifoConfigIsRefusedAtOnce) {
  const std::string fifo = Fifo("config.toml");
  for (const char* daemon : {"eb-agent", "eb-coordinator"}) {
    CliResult result = cluster_.Run(daemon, {"--config", fifo}, {}, kPrompt);
    EXPECT_EQ(result.exit_code, 2) << daemon << ": " << result.err;
    EXPECT_THAT(result.err,
                HasSubstr(fifo + ": config file is a FIFO (named pipe), not a regular file"))
        << daemon;
  }
}

TEST_F(StartupStopTest, P2_2_13_FifoTlsAndBaselinesFilesAreRefusedAtOnce) {
  const std::string fifo = Fifo("ca.pem");
  CliResult coordinator = cluster_.Run("eb-coordinator",
                                       {kNoConfigFile, "--listen=127.0.0.1:0", "--tls-ca", fifo,
                                        "--tls-cert", fifo, "--tls-key", fifo},
                                       {}, kPrompt);
  EXPECT_EQ(coordinator.exit_code, 2) << coordinator.err;
  EXPECT_THAT(coordinator.err, HasSubstr("tls-ca: " + fifo + ": TLS file is a FIFO"));

  CliResult ebctl = cluster_.Run("ebctl",
                                 {"--coordinator=127.0.0.1:1", "--tls-ca", fifo, "--tls-cert", fifo,
                                  "--tls-key", fifo, "nodes"},
                                 {}, kPrompt);
  EXPECT_NE(ebctl.exit_code, 0);
  EXPECT_THAT(ebctl.err, HasSubstr("TLS file is a FIFO"));

  // ebctl reads --baselines once connected.
  ASSERT_TRUE(cluster_.StartCoordinator().ok());
  CliResult validate = cluster_.Ebctl({"validate", "--baselines", fifo}, kPrompt);
  EXPECT_EQ(validate.exit_code, 2) << validate.err;
  EXPECT_THAT(validate.err, HasSubstr("baselines file is a FIFO"));

  CliResult devzero = cluster_.Ebctl({"validate", "--baselines", "/dev/zero"}, kPrompt);
  EXPECT_EQ(devzero.exit_code, 2) << devzero.err;
  EXPECT_THAT(devzero.err, HasSubstr("/dev/zero: baselines file is a character device"));
}

// Without a LocalCluster: its launcher would reap this test's children.
class StartupWaitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/eb-startup-wait-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }
  std::string dir_;
};

// The agent waits in its start for the worker's NCCL probe (up to 5 s): a
// worker binary that never answers holds it there, and SIGTERM ends it.
TEST_F(StartupWaitTest, AgentStopsOnSigtermWhileItsStartWaits) {
  const std::string marker = absl::StrCat(dir_, "/probe-started");
  const std::string worker = absl::StrCat(dir_, "/slow-worker.sh");
  std::ofstream(worker) << "#!/bin/sh\ntouch " << marker << "\nexec sleep 20\n";
  std::filesystem::permissions(worker, std::filesystem::perms::owner_all);

  auto launcher = common::PosixProcessLauncher::Create();
  ASSERT_TRUE(launcher.ok());
  common::ProcessSpec spec;
  spec.executable = BinaryPath("eb-agent");
  spec.argv = {spec.executable,
               kNoConfigFile,
               "--coordinator=127.0.0.1:1",
               "--node-name=n1",
               "--worker-binary=" + worker,
               "--run-dir=" + dir_ + "/run-n1"};
  for (char** entry = environ; *entry != nullptr; ++entry) spec.env.emplace_back(*entry);
  spec.log_path = absl::StrCat(dir_, "/agent.log");
  absl::Mutex mu;
  std::optional<common::ExitInfo> exit;
  auto child = (*launcher)->Spawn(spec, [&](const common::ExitInfo& info) {
    absl::MutexLock lock(&mu);
    exit = info;
  });
  ASSERT_TRUE(child.ok()) << child.status();

  // The agent is inside its start once the probe runs.
  const absl::Time give_up = absl::Now() + kPrompt;
  while (!std::filesystem::exists(marker) && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(10));  // polling a real process, not timing it
  }
  ASSERT_TRUE(std::filesystem::exists(marker)) << ReadWhole(spec.log_path);
  ASSERT_EQ(kill(child->pid, SIGTERM), 0);

  absl::MutexLock lock(&mu);
  // Before the probe's own 5 s timeout would have let the start go on.
  ASSERT_TRUE(mu.AwaitWithTimeout(
      absl::Condition(
          +[](std::optional<common::ExitInfo>* e) { return e->has_value(); }, &exit),
      absl::Seconds(4)))
      << ReadWhole(spec.log_path);
  EXPECT_EQ(exit->exit_code, 0);  // a requested stop, as after the start
  EXPECT_THAT(ReadWhole(spec.log_path),
              HasSubstr("eb-agent: received SIGTERM while resolving its configuration"));
}

}  // namespace
}  // namespace eb::testing
