// The agent's metrics collected around a real WorkerSupervisor (fake
// launcher, fake clock, manual executor: no sleeps): spawns are counted by
// the launcher decorator, failures by kind by the sink decorator, and the
// gauges follow the supervisor. The scrape text is checked through the strict
// parser.

#include "agent/metrics/agent_metrics.h"

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "agent/core/worker_supervisor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/fake_process_launcher.h"
#include "tests/fakes/manual_executor.h"
#include "tests/testutil/prometheus_text.h"

namespace eb::agent {
namespace {

namespace v1 = ebnccl::v1;
using ::eb::testing::FakeProcessLauncher;
using ::eb::testing::ParsePrometheusText;
using ::eb::testing::PromText;

constexpr char kTest[] = "t-1";
constexpr absl::Duration kRegisterTimeout = absl::Seconds(10);

class CountingSink final : public CoordinatorSink {
 public:
  void SendToCoordinator(const v1::AgentMessage&) override { ++messages; }
  int messages = 0;
};

class AgentMetricsTest : public ::testing::Test {
 protected:
  AgentMetricsTest() {
    std::string dir = absl::StrCat(::testing::TempDir(), "/eb_agent_metrics_XXXXXX");
    EXPECT_NE(mkdtemp(dir.data()), nullptr);
    run_dir_ = dir;
    config_.node_name = "node-a";
    // The agent refuses more ranks than its own slots (LaunchTest is untrusted).
    config_.worker_slots = 4;
    config_.worker_binary = "/opt/eb/bin/eb-worker";
    config_.run_dir = run_dir_;
    SupervisorEnvironment environment;
    environment.agent_pid = 4242;
    environment.agent_target = "unix:/run/eb/agent.sock";
    environment.make_token = [this] { return absl::StrCat("token-", ++tokens_); };
    supervisor_ = std::make_unique<WorkerSupervisor>(config_, std::move(environment), clock_,
                                                     executor_, metered_launcher_, metered_sink_);
  }
  ~AgentMetricsTest() override {
    supervisor_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(run_dir_, ignored);
  }

  static v1::LaunchTest Launch(const std::string& test_id, int ranks) {
    v1::LaunchTest launch;
    launch.set_test_id(test_id);
    launch.mutable_spec()->set_collective(v1::COLLECTIVE_ALL_REDUCE);
    launch.mutable_spec()->set_max_bytes(1024);
    launch.add_sizes_bytes(1024);  // the coordinator's sweep, which the agent checks
    launch.set_register_timeout_ms(absl::ToInt64Milliseconds(kRegisterTimeout));
    launch.set_init_timeout_ms(30'000);
    launch.set_op_timeout_ms(5'000);
    for (int i = 0; i < ranks; ++i) {
      v1::RankAssignment& rank = *launch.add_ranks();
      rank.set_rank(i);
      rank.set_world_size(ranks);
      rank.set_node_name("node-a");
      rank.set_local_rank(i);
      rank.set_device_index(-1);
    }
    return launch;
  }

  PromText Scrape(bool connected) {
    metrics_.Update(*supervisor_, connected);
    auto parsed = ParsePrometheusText(registry_.Render());
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    return parsed.ok() ? *parsed : PromText{};
  }

  std::string run_dir_;
  AgentCoreConfig config_;
  eb::testing::FakeClock clock_;
  eb::testing::ManualExecutor executor_{clock_};
  FakeProcessLauncher launcher_;
  CountingSink sink_;
  common::MetricsRegistry registry_;
  AgentMetrics metrics_{registry_};
  MeteredProcessLauncher metered_launcher_{launcher_, metrics_};
  MeteredCoordinatorSink metered_sink_{sink_, metrics_};
  int tokens_ = 0;
  std::unique_ptr<WorkerSupervisor> supervisor_;
};

TEST_F(AgentMetricsTest, FreshAgentExportsZeros) {
  const PromText text = Scrape(false);
  EXPECT_EQ(text.Value("ebnccl_agent_worker_spawns_total"), 0);
  EXPECT_EQ(text.Value("ebnccl_agent_connected"), 0);
  EXPECT_EQ(text.Value("ebnccl_agent_tests_running"), 0);
  EXPECT_EQ(text.Value("ebnccl_agent_workers_running"), 0);
  for (const char* kind :
       {"worker_exited", "worker_hung", "worker_registration_timeout", "launch_failed"}) {
    EXPECT_EQ(text.Value("ebnccl_agent_worker_failures_total", {{"kind", kind}}), 0) << kind;
  }
  EXPECT_EQ(text.families.at("ebnccl_agent_worker_failures_total").type, "counter");
}

TEST_F(AgentMetricsTest, SpawnsAndRunningGaugesFollowTheSupervisor) {
  supervisor_->Launch(Launch(kTest, 2));
  executor_.RunUntilIdle();
  PromText text = Scrape(true);
  EXPECT_EQ(text.Value("ebnccl_agent_worker_spawns_total"), 2);
  EXPECT_EQ(text.Value("ebnccl_agent_connected"), 1);
  EXPECT_EQ(text.Value("ebnccl_agent_tests_running"), 1);
  EXPECT_EQ(text.Value("ebnccl_agent_workers_running"), 2);

  // Stopped by the coordinator: the exits it caused are not failures.
  supervisor_->Stop(kTest, "test over");
  for (const auto& child : launcher_.Running()) {
    ASSERT_TRUE(launcher_.Exit(child, FakeProcessLauncher::Signaled(15)).ok());
  }
  executor_.RunUntilIdle();
  text = Scrape(true);
  EXPECT_EQ(text.Value("ebnccl_agent_tests_running"), 0);
  EXPECT_EQ(text.Value("ebnccl_agent_workers_running"), 0);
  EXPECT_EQ(text.Value("ebnccl_agent_worker_failures_total", {{"kind", "worker_exited"}}), 0);
}

TEST_F(AgentMetricsTest, FailedSpawnCountsAsLaunchFailedNotAsSpawn) {
  launcher_.FailNextSpawn(absl::NotFoundError("no such file"));
  supervisor_->Launch(Launch(kTest, 2));
  executor_.RunUntilIdle();
  const PromText text = Scrape(true);
  EXPECT_EQ(text.Value("ebnccl_agent_worker_spawns_total"), 1);
  EXPECT_EQ(text.Value("ebnccl_agent_worker_failures_total", {{"kind", "launch_failed"}}), 1);
}

TEST_F(AgentMetricsTest, CrashIsCountedOnceAndTheStopItCausesIsNot) {
  supervisor_->Launch(Launch(kTest, 2));
  executor_.RunUntilIdle();
  const auto children = launcher_.Running();
  ASSERT_EQ(children.size(), 2u);
  // Rank 0 crashes; the supervisor then stops rank 1, whose exit is no failure.
  ASSERT_TRUE(launcher_.Exit(children[0], FakeProcessLauncher::Signaled(11)).ok());
  executor_.RunUntilIdle();
  ASSERT_TRUE(launcher_.Exit(children[1], FakeProcessLauncher::Signaled(15)).ok());
  executor_.RunUntilIdle();
  const PromText text = Scrape(true);
  EXPECT_EQ(text.Value("ebnccl_agent_worker_failures_total", {{"kind", "worker_exited"}}), 1);
  EXPECT_EQ(text.Value("ebnccl_agent_workers_running"), 0);
  EXPECT_GT(sink_.messages, 0);  // everything still reaches the coordinator
}

TEST_F(AgentMetricsTest, RegistrationTimeoutsAreCountedPerWorker) {
  supervisor_->Launch(Launch(kTest, 2));
  executor_.RunUntilIdle();
  executor_.AdvanceTime(kRegisterTimeout);
  const PromText text = Scrape(true);
  EXPECT_EQ(
      text.Value("ebnccl_agent_worker_failures_total", {{"kind", "worker_registration_timeout"}}),
      2);
  EXPECT_EQ(text.Value("ebnccl_agent_worker_spawns_total"), 2);
}

TEST_F(AgentMetricsTest, FailuresReportedByWorkersAreCountedByTheirKind) {
  supervisor_->Launch(Launch(kTest, 1));
  executor_.RunUntilIdle();
  v1::RegisterWorkerRequest registration;
  registration.set_test_id(kTest);
  registration.set_rank(0);
  registration.set_worker_token("token-1");
  ASSERT_TRUE(supervisor_->RegisterWorker(registration).ok());
  v1::ReportWorkerEventRequest report;
  report.set_worker_token("token-1");
  report.mutable_event()->set_test_id(kTest);
  report.mutable_event()->set_rank(0);
  report.mutable_event()->set_kind(v1::WORKER_EVENT_KIND_FAILED);
  report.mutable_event()->mutable_failure()->set_kind(v1::FAILURE_KIND_COMMUNICATION_ERROR);
  ASSERT_TRUE(supervisor_->ReportEvent(report).ok());
  const PromText text = Scrape(true);
  EXPECT_EQ(text.Value("ebnccl_agent_worker_failures_total", {{"kind", "communication_error"}}), 1);
}

TEST(FailureKindLabelTest, DropsThePrefix) {
  EXPECT_EQ(FailureKindLabel(v1::FAILURE_KIND_WORKER_HUNG), "worker_hung");
  EXPECT_EQ(FailureKindLabel(v1::FAILURE_KIND_BELOW_MIN_BUSBW), "below_min_busbw");
  EXPECT_EQ(FailureKindLabel(static_cast<v1::FailureKind>(999)), "unspecified");
}

}  // namespace
}  // namespace eb::agent
