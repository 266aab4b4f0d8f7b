// A frozen agent (SIGSTOP: alive, so no parent-death signal, but silent)
// must not leave its workers behind (issue 16). Its workers notice the
// silence themselves (AgentSilenceLimit: max(4 heartbeat periods, 5 s),
// plus one period and one short call) and exit; a worker still waiting to
// register gives up after 10 s. The verdict names the lost node and says
// that its workers could not be confirmed stopped.

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/process/posix_process_launcher.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testutil/local_cluster.h"

extern char** environ;

namespace eb::testing {
namespace {

using ::testing::HasSubstr;

// LocalCluster::FastAgentFlags' 200 ms heartbeat: the worker's limit 5 s,
// + 0.2 s (its check period) + 0.1 s (its exit). The 0.3 s are scheduling,
// which a sanitizer slows with everything else: under TSan on a loaded
// machine the workers were still there 4.3 s after the freeze (issue 33
// item 19, loaded run 2 of 5). The 5 s are the product's limit and do not
// scale.
absl::Duration WorkersGoneAfterFreeze() {
  return absl::Seconds(5) + absl::Milliseconds(300) * LocalCluster::TestSlowdown();
}

TEST(FrozenAgentTest, WorkersOfAFrozenAgentAreGoneSoonAfterTheVerdict) {
  LocalCluster cluster;
  ASSERT_TRUE(cluster.StartCoordinator().ok());
  ASSERT_TRUE(cluster.StartAgent("host0", 2).ok());
  ASSERT_TRUE(cluster.StartAgent("host1", 2).ok());
  const int handle = cluster.StartEbctl(LongSweepArgs());
  ASSERT_GT(cluster.WaitForRunningWorker(3), 0);
  const absl::Time frozen = absl::Now();
  ASSERT_TRUE(cluster.SignalAgent("host1", SIGSTOP).ok());
  CliResult result = cluster.WaitEbctl(handle);
  const absl::Time verdict = absl::Now();
  EXPECT_EQ(result.exit_code, 3) << result.err;
  nlohmann::json report = nlohmann::json::parse(result.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << result.out << result.err;
  const nlohmann::json& primary = report["failures"][0];
  EXPECT_EQ(primary["kind"], "node_lost") << report["failures"].dump(2);
  EXPECT_EQ(primary["node"], "host1");
  EXPECT_THAT(primary["message"].get<std::string>(),
              HasSubstr("its workers could not be confirmed stopped"));
  // The documented bound, from the freeze; never later than that after the
  // verdict (host0's were stopped and confirmed before it).
  const absl::Time bound = std::max(frozen + WorkersGoneAfterFreeze(), verdict);
  // Plus the time to see them gone: on a machine six times oversubscribed
  // (CI's two cores with the sanitizer trees building beside the plain
  // tests) the plain build's workers were still there 4.30 s after the
  // freeze, once in 40 runs, against 4.3 s allowed here before.
  const absl::Duration observe = absl::Seconds(2) * LocalCluster::TestSlowdown();
  EXPECT_TRUE(cluster.WaitForNoWorkers(report["test_id"], bound - absl::Now() + observe))
      << "workers still alive " << absl::Now() - frozen << " after the agent froze";
  // Thawed, the agent reaps them, comes back, and runs the next test.
  ASSERT_TRUE(cluster.SignalAgent("host1", SIGCONT).ok());
  ASSERT_TRUE(cluster.WaitForIdleNodes(2).ok());
  CliResult next = cluster.Ebctl({"run-test", "--json", "--nodes", "host0,host1", "-b", "8", "-e",
                                  "64K", "-f", "8", "-n", "2"});
  EXPECT_EQ(next.exit_code, 0) << next.err;
}

// An agent frozen before its worker registered: the socket accepts (the
// kernel does that for a stopped process) but nothing answers.
TEST(FrozenAgentTest, WorkerGivesUpRegisteringWithASilentAgent) {
  char dir[] = "/tmp/eb-frozen-agent-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string socket_path = std::string(dir) + "/agent.sock";
  const int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket_path.c_str(), sizeof(address.sun_path) - 1);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(listen(listener, 16), 0);

  auto launcher = common::PosixProcessLauncher::Create();
  ASSERT_TRUE(launcher.ok()) << launcher.status();
  absl::Mutex mu;
  std::optional<common::ExitInfo> exit_info;
  common::ProcessSpec spec;
  spec.executable = BinaryPath("eb-worker");
  spec.argv = {spec.executable, "--agent=unix:" + socket_path,
               absl::StrCat("--agent-pid=", getpid()), "--test-id=t-frozen", "--rank=0"};
  for (char** entry = environ; *entry != nullptr; ++entry) spec.env.emplace_back(*entry);
  spec.env.push_back("EB_WORKER_TOKEN=frozen-agent-test");
  spec.log_path = std::string(dir) + "/worker.log";
  const absl::Time started = absl::Now();
  auto child = (*launcher)->Spawn(spec, [&](const common::ExitInfo& exit) {
    absl::MutexLock lock(&mu);
    exit_info = exit;
  });
  ASSERT_TRUE(child.ok()) << child.status();
  absl::MutexLock lock(&mu);
  auto exited = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return exit_info.has_value(); };
  ASSERT_TRUE(mu.AwaitWithTimeout(absl::Condition(&exited), absl::Seconds(20)))
      << "eb-worker still waiting to register 20 s later";
  // 10 s of registration deadline, plus the process's start.
  EXPECT_LT(absl::Now() - started, absl::Seconds(14));
  EXPECT_EQ(exit_info->exit_code, 1) << exit_info->Describe();
  close(listener);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace eb::testing
