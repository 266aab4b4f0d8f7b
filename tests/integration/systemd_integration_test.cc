// The real daemons under a harness that plays systemd's role: each gets its
// own NOTIFY_SOCKET (tests/testutil/notify_socket_harness.h) and a 1 s
// WATCHDOG_USEC, as a Type=notify unit with WatchdogSec=1s would. Checks that
// READY=1 comes when the daemon really serves (the coordinator once its gRPC
// server listens, the agent only once it is registered), that WATCHDOG=1
// pings arrive from the daemon's own pid (NotifyAccess=main), that SIGTERM
// yields STOPPING=1, and scrapes /metrics of both through the strict parser.

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <httplib.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/process/posix_process_launcher.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testutil/local_cluster.h"
#include "tests/testutil/notify_socket_harness.h"
#include "tests/testutil/prometheus_text.h"

extern char** environ;

namespace eb::testing {
namespace {

using ::testing::Ge;
using ::testing::HasSubstr;

constexpr absl::Duration kWatchdog = absl::Seconds(1);
constexpr absl::Duration kStartTimeout = absl::Seconds(20);

// One daemon with its own notification socket.
class Daemon {
 public:
  Daemon(common::ProcessLauncher& launcher, std::string name)
      : launcher_(launcher), name_(std::move(name)) {
    auto harness = NotifySocketHarness::Create();
    EXPECT_TRUE(harness.ok()) << harness.status();
    harness_ = *std::move(harness);
    log_path_ = absl::StrCat(::testing::TempDir(), "/", name, "-", getpid(), ".log");
  }
  ~Daemon() {
    Signal(SIGKILL);
    exited_.WaitForNotificationWithTimeout(absl::Seconds(10));
    if (::testing::Test::HasFailure()) {
      std::ifstream in(log_path_);
      std::stringstream log;
      log << in.rdbuf();
      std::cerr << "----- " << name_ << " log -----\n" << log.str();
    }
  }

  void Start(const std::string& binary, std::vector<std::string> args) {
    common::ProcessSpec spec;
    spec.executable = BinaryPath(binary);
    spec.argv = {spec.executable};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    for (char** entry = environ; *entry != nullptr; ++entry) {
      const std::string text = *entry;
      if (text.rfind("NOTIFY_SOCKET=", 0) != 0 && text.rfind("WATCHDOG_", 0) != 0) {
        spec.env.push_back(text);
      }
    }
    for (const std::string& entry : harness_->Environment(kWatchdog)) spec.env.push_back(entry);
    spec.log_path = log_path_;
    auto child = launcher_.Spawn(spec, [this](const common::ExitInfo& info) {
      exit_ = info;
      exited_.Notify();
    });
    ASSERT_TRUE(child.ok()) << child.status();
    child_ = *child;
  }

  void Signal(int signal) {
    if (child_.pid > 0 && !exited_.HasBeenNotified()) (void)launcher_.SignalGroup(child_, signal);
  }
  bool WaitExit(absl::Duration timeout) { return exited_.WaitForNotificationWithTimeout(timeout); }
  const common::ExitInfo& exit() const { return exit_; }
  pid_t pid() const { return child_.pid; }
  NotifySocketHarness& harness() { return *harness_; }

 private:
  common::ProcessLauncher& launcher_;
  std::string name_;
  std::unique_ptr<NotifySocketHarness> harness_;
  std::string log_path_;
  common::ChildHandle child_;
  common::ExitInfo exit_;
  absl::Notification exited_;
};

// "... port 41234 ..." after `label`.
int PortAfter(const std::string& status, const std::string& label) {
  std::smatch match;
  const std::regex pattern(label + " port ([0-9]+)");
  int port = 0;
  if (std::regex_search(status, match, pattern)) (void)absl::SimpleAtoi(match[1].str(), &port);
  return port;
}

PromText Scrape(int port) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(5);
  auto response = client.Get("/metrics");
  EXPECT_TRUE(response) << "GET /metrics on port " << port;
  if (!response) return {};
  EXPECT_EQ(response->status, 200);
  auto parsed = ParsePrometheusText(response->body);
  EXPECT_TRUE(parsed.ok()) << parsed.status() << "\n" << response->body;
  return parsed.ok() ? *parsed : PromText{};
}

// Scrapes until `name{labels}` == value (state settles asynchronously).
bool WaitForValue(int port, const std::string& name, const PromLabels& labels, double value) {
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (absl::Now() < deadline) {
    if (Scrape(port).Value(name, labels) == value) return true;
    absl::SleepFor(absl::Milliseconds(50));
  }
  return false;
}

class SystemdIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto launcher = common::PosixProcessLauncher::Create();
    ASSERT_TRUE(launcher.ok()) << launcher.status();
    launcher_ = *std::move(launcher);
    run_dir_ = absl::StrCat(::testing::TempDir(), "/eb-systemd-it-", getpid());
  }

  // Starts the coordinator and waits for READY=1; returns its status line.
  std::string StartCoordinator(Daemon& daemon, const std::string& listen = "127.0.0.1:0") {
    daemon.Start("eb-coordinator",
                 {"--config", "/dev/null", "--listen", listen, "--metrics-listen", "127.0.0.1:0",
                  "--history-path", "", "--heartbeat-period-ms", "200", "--heartbeat-miss-limit",
                  absl::StrCat(3 * LocalCluster::TestSlowdown())});
    auto ready = daemon.harness().WaitFor("READY=1", kStartTimeout);
    EXPECT_TRUE(ready.ok()) << ready.status();
    if (!ready.ok()) return "";
    EXPECT_EQ(ready->pid, daemon.pid());
    return ready->Value("STATUS");
  }

  void StartAgent(Daemon& daemon, int coordinator_port, const std::string& name) {
    daemon.Start("eb-agent", {"--config",
                              "/dev/null",
                              "--coordinator",
                              absl::StrCat("127.0.0.1:", coordinator_port),
                              "--node-name",
                              name,
                              "--workers",
                              "2",
                              "--transport",
                              "gloo",
                              "--bootstrap-address",
                              "127.0.0.1",
                              "--worker-binary",
                              BinaryPath("eb-worker"),
                              "--worker-grace-ms",
                              "1000",
                              "--run-dir",
                              absl::StrCat(run_dir_, "/", name),
                              "--metrics-listen",
                              "127.0.0.1:0"});
  }

  std::unique_ptr<common::ProcessLauncher> launcher_;
  std::string run_dir_;
};

TEST_F(SystemdIntegrationTest, ReadyWatchdogMetricsAndStopping) {
  Daemon coordinator(*launcher_, "coordinator");
  const std::string status = StartCoordinator(coordinator);
  const int port = PortAfter(status, "serving on");
  const int coordinator_metrics = PortAfter(status, "metrics on");
  ASSERT_GT(port, 0) << status;
  ASSERT_GT(coordinator_metrics, 0) << status;

  // WatchdogSec=1s: a ping every 500 ms, from the main pid.
  EXPECT_THAT(coordinator.harness().CountWithin("WATCHDOG=1", absl::Milliseconds(1600)), Ge(2));
  for (const NotifyMessage& message : coordinator.harness().history()) {
    EXPECT_EQ(message.pid, coordinator.pid()) << message.text;
  }

  PromText text = Scrape(coordinator_metrics);
  EXPECT_EQ(text.Value("ebnccl_nodes", {{"state", "idle"}}), 0);
  EXPECT_EQ(text.Value("ebnccl_tests_total", {{"verdict", "passed"}}), 0);
  EXPECT_EQ(text.Value("ebnccl_tests_running"), 0);

  Daemon agent(*launcher_, "agent");
  StartAgent(agent, port, "sd-node");
  auto ready = agent.harness().WaitFor("READY=1", kStartTimeout);
  ASSERT_TRUE(ready.ok()) << ready.status();
  EXPECT_EQ(ready->pid, agent.pid());
  EXPECT_THAT(ready->Value("STATUS"), HasSubstr("registered with"));
  const int agent_metrics = PortAfter(ready->Value("STATUS"), "metrics on");
  ASSERT_GT(agent_metrics, 0) << ready->text;
  EXPECT_THAT(agent.harness().CountWithin("WATCHDOG=1", absl::Milliseconds(1600)), Ge(2));

  EXPECT_TRUE(WaitForValue(coordinator_metrics, "ebnccl_nodes", {{"state", "idle"}}, 1));
  text = Scrape(coordinator_metrics);
  EXPECT_LT(text.Value("ebnccl_node_heartbeat_age_seconds", {{"node", "sd-node"}}).value_or(99), 2);
  text = Scrape(agent_metrics);
  EXPECT_EQ(text.Value("ebnccl_agent_connected"), 1);
  EXPECT_EQ(text.Value("ebnccl_agent_worker_spawns_total"), 0);
  EXPECT_EQ(text.Value("ebnccl_agent_tests_running"), 0);

  // One real test through ebctl: counted by verdict, its bandwidth recorded
  // for the node, its two workers counted as spawns.
  Daemon ebctl(*launcher_, "ebctl");
  ebctl.Start("ebctl",
              {"--coordinator", absl::StrCat("127.0.0.1:", port), "run-test", "--nodes", "sd-node",
               "--collective", "all_reduce", "-b", "1K", "-e", "16K", "-f", "4"});
  ASSERT_TRUE(ebctl.WaitExit(absl::Seconds(90)));
  EXPECT_EQ(ebctl.exit().exit_code, 0);
  text = Scrape(coordinator_metrics);
  EXPECT_EQ(text.Value("ebnccl_tests_total", {{"verdict", "passed"}}), 1);
  EXPECT_EQ(text.Value("ebnccl_tests_running"), 0);
  // 16 KiB at most: the small size class.
  const PromLabels busbw_labels = {
      {"node", "sd-node"}, {"collective", "all_reduce"}, {"size_class", "small"}};
  EXPECT_GT(text.Value("ebnccl_test_busbw_bytes_per_second", busbw_labels).value_or(0), 0);
  EXPECT_GT(text.Value("ebnccl_test_last_timestamp_seconds", busbw_labels).value_or(0), 0);
  text = Scrape(agent_metrics);
  EXPECT_EQ(text.Value("ebnccl_agent_worker_spawns_total"), 2);
  EXPECT_EQ(text.Value("ebnccl_agent_worker_failures_total", {{"kind", "worker_exited"}}), 0);

  agent.Signal(SIGTERM);
  EXPECT_TRUE(agent.harness().WaitFor("STOPPING=1", absl::Seconds(10)).ok());
  ASSERT_TRUE(agent.WaitExit(absl::Seconds(20)));
  EXPECT_EQ(agent.exit().exit_code, 0);
  EXPECT_TRUE(WaitForValue(coordinator_metrics, "ebnccl_nodes", {{"state", "lost"}}, 1));

  coordinator.Signal(SIGTERM);
  EXPECT_TRUE(coordinator.harness().WaitFor("STOPPING=1", absl::Seconds(10)).ok());
  ASSERT_TRUE(coordinator.WaitExit(absl::Seconds(20)));
  EXPECT_EQ(coordinator.exit().exit_code, 0);
}

TEST_F(SystemdIntegrationTest, AgentIsReadyOnlyOnceRegistered) {
  // A port nobody listens on yet: find one, then free it.
  int port = 0;
  {
    Daemon probe(*launcher_, "coordinator-probe");
    port = PortAfter(StartCoordinator(probe), "serving on");
    ASSERT_GT(port, 0);
    probe.Signal(SIGTERM);
    ASSERT_TRUE(probe.WaitExit(absl::Seconds(20)));
  }
  Daemon agent(*launcher_, "agent-early");
  StartAgent(agent, port, "early-node");
  // Up and pinging the watchdog, but not ready while it cannot register.
  auto registering = agent.harness().WaitFor(
      "STATUS=registering with the coordinator 127.0.0.1:" + std::to_string(port), kStartTimeout);
  EXPECT_TRUE(registering.ok()) << registering.status();
  EXPECT_EQ(agent.harness().WaitFor("READY=1", absl::Seconds(2)).status().code(),
            absl::StatusCode::kDeadlineExceeded);

  Daemon coordinator(*launcher_, "coordinator-late");
  StartCoordinator(coordinator, absl::StrCat("127.0.0.1:", port));
  auto ready = agent.harness().WaitFor("READY=1", kStartTimeout);
  ASSERT_TRUE(ready.ok()) << ready.status();
  EXPECT_THAT(ready->Value("STATUS"), HasSubstr("as early-node"));
}

}  // namespace
}  // namespace eb::testing
