// The agent's worker socket is open only while the node has workers (and a
// linger after): between tests no socket accepts anything, and gRPC's
// callback threads, which woke an idle agent every second, are gone
// (agent/grpc/worker_endpoint.h, issue 15). Real binaries on loopback.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testutil/local_cluster.h"

namespace eb::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr absl::Duration kLinger = absl::Milliseconds(500);

class WorkerSocketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.StartCoordinator().ok());
    std::vector<std::string> flags = LocalCluster::FastAgentFlags();
    flags.push_back(absl::StrCat("--worker-socket-linger-ms=", absl::ToInt64Milliseconds(kLinger)));
    ASSERT_TRUE(cluster_.StartAgent("host0", 2, flags).ok());
  }

  // The worker sockets in the agent's run directory, by name.
  std::vector<std::string> Sockets() const {
    std::vector<std::string> names;
    std::error_code error;
    for (const auto& entry :
         std::filesystem::directory_iterator(cluster_.agent_run_dir("host0"), error)) {
      const std::string name = entry.path().filename().string();
      if (absl::EndsWith(name, ".sock")) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  // How many of the agent's threads gRPC's callback API made.
  int NextingThreads() const {
    int count = 0;
    const std::string tasks = absl::StrCat("/proc/", cluster_.AgentPid("host0"), "/task");
    std::error_code error;
    for (const auto& task : std::filesystem::directory_iterator(tasks, error)) {
      std::ifstream comm(task.path() / "comm");
      std::string name;
      std::getline(comm, name);
      if (name == "nexting_thread") ++count;
    }
    return count;
  }

  // Waits (bounded) until the agent has closed its worker socket.
  bool WaitClosed() const {
    // The linger, then the next heartbeat (200 ms), with room for a slow
    // machine.
    const absl::Time deadline =
        absl::Now() + kLinger + absl::Seconds(10) * LocalCluster::TestSlowdown();
    while (absl::Now() < deadline) {
      if (Sockets().empty() && NextingThreads() == 0) return true;
      absl::SleepFor(absl::Milliseconds(50));
    }
    return false;
  }

  void RunTest() {
    CliResult result = cluster_.Ebctl(
        {"run-test", "--nodes", "host0", "-b", "1K", "-e", "4K", "-f", "2", "-n", "2", "-w", "1"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
  }

  LocalCluster cluster_;
};

TEST_F(WorkerSocketTest, TheSocketIsOpenForTestsOnlyAndEachOpeningIsNew) {
  // Opened at start (a socket that cannot be served is a start-up error),
  // then closed once the agent has been idle for the linger.
  EXPECT_THAT(Sockets(), ElementsAre("agent-1.sock"));
  ASSERT_TRUE(WaitClosed()) << "still open: " << ::testing::PrintToString(Sockets()) << ", "
                            << NextingThreads() << " nexting threads";

  RunTest();
  // The test reopened it under a new name; it is open until the linger ends.
  const std::vector<std::string> during = Sockets();
  EXPECT_TRUE(during.empty() || during == std::vector<std::string>{"agent-2.sock"})
      << ::testing::PrintToString(during);
  ASSERT_TRUE(WaitClosed());
  EXPECT_THAT(Sockets(), IsEmpty());

  // And again: every test gets a working socket.
  RunTest();
  ASSERT_TRUE(WaitClosed());
}

}  // namespace
}  // namespace eb::testing
