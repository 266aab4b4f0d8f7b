// WorkerSupervisor against FakeProcessLauncher + FakeClock + ManualExecutor
// (STYLE.md section 6): registration deadline, crash, graduated stop, hang
// watchdog, duplicate GPUs, spawn failures and the reports to the
// coordinator. No sleeps: time moves only through ManualExecutor.

#include "agent/core/worker_supervisor.h"

#include <signal.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "agent/core/worker_spec.h"
#include "agent/host/directories.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/fake_process_launcher.h"
#include "tests/fakes/manual_executor.h"

namespace eb::agent {
namespace {

namespace v1 = ebnccl::v1;
using ::eb::testing::FakeClock;
using ::eb::testing::FakeProcessLauncher;
using ::eb::testing::ManualExecutor;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr char kTest[] = "t-1";
constexpr absl::Duration kRegisterTimeout = absl::Seconds(10);
constexpr absl::Duration kGrace = absl::Seconds(5);
constexpr absl::Duration kHeartbeatPeriod = absl::Seconds(1);
constexpr absl::Duration kHangTimeout = absl::Seconds(30);

// Records everything the supervisor tells the coordinator.
class RecordingSink final : public CoordinatorSink {
 public:
  void SendToCoordinator(const v1::AgentMessage& message) override { messages_.push_back(message); }

  const std::vector<v1::AgentMessage>& messages() const { return messages_; }
  void Clear() { messages_.clear(); }

  std::vector<v1::WorkerEvent> Events() const {
    std::vector<v1::WorkerEvent> events;
    for (const auto& m : messages_) {
      if (m.has_worker_event()) events.push_back(m.worker_event());
    }
    return events;
  }
  // FAILED and EXITED events: the reports the coordinator fails a test on.
  std::vector<v1::WorkerEvent> Failures() const {
    std::vector<v1::WorkerEvent> failures;
    for (const v1::WorkerEvent& e : Events()) {
      if (e.kind() == v1::WORKER_EVENT_KIND_FAILED || e.kind() == v1::WORKER_EVENT_KIND_EXITED) {
        failures.push_back(e);
      }
    }
    return failures;
  }
  // Test ids of the WorkersStopped messages, in order.
  std::vector<std::string> Stopped() const {
    std::vector<std::string> ids;
    for (const auto& m : messages_) {
      if (m.has_workers_stopped()) ids.push_back(m.workers_stopped().test_id());
    }
    return ids;
  }

 private:
  std::vector<v1::AgentMessage> messages_;
};

std::string EnvValue(const common::ProcessSpec& spec, const std::string& name) {
  const std::string prefix = name + "=";
  for (const std::string& entry : spec.env) {
    if (absl::StartsWith(entry, prefix)) return entry.substr(prefix.size());
  }
  return "";
}

std::string ArgValue(const common::ProcessSpec& spec, const std::string& flag) {
  const std::string prefix = absl::StrCat("--", flag, "=");
  for (const std::string& arg : spec.argv) {
    if (absl::StartsWith(arg, prefix)) return arg.substr(prefix.size());
  }
  return "";
}

class WorkerSupervisorTest : public ::testing::Test {
 protected:
  WorkerSupervisorTest() : executor_(clock_) {
    std::string dir_template = absl::StrCat(::testing::TempDir(), "/eb_supervisor_XXXXXX");
    const char* dir = mkdtemp(dir_template.data());
    EXPECT_NE(dir, nullptr);
    run_dir_ = dir_template;

    config_.node_name = "node-a";
    config_.worker_slots = 4;
    config_.worker_binary = "/opt/eb/bin/eb-worker";
    config_.run_dir = run_dir_;
    config_.bootstrap_interface = "eth0";
    config_.worker_grace = kGrace;
    config_.worker_heartbeat_period = kHeartbeatPeriod;
    config_.worker_hang_timeout = kHangTimeout;
    MakeSupervisor();
  }

  ~WorkerSupervisorTest() override {
    supervisor_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(run_dir_, ignored);
  }

  void MakeSupervisor() {
    SupervisorEnvironment environment;
    environment.agent_pid = 4242;
    environment.agent_target = "unix:/run/eb/agent.sock";
    environment.agent_env = {"PATH=/usr/bin", "NCCL_DEBUG=WARN", "AWS_SECRET=hunter2"};
    environment.make_token = [this] { return absl::StrCat("token-", ++tokens_made_); };
    environment.create_directories = create_directories_;
    environment.read_ports = read_ports_;
    environment.read_log = read_log_;
    supervisor_ = std::make_unique<WorkerSupervisor>(config_, std::move(environment), clock_,
                                                     executor_, launcher_, sink_);
  }

  // A launch of this node's ranks 2, 3, ... (node index 1 of a 2-node test)
  // on the given devices (-1: CPU).
  static v1::LaunchTest MakeLaunch(const std::string& test_id, std::vector<int> devices) {
    v1::LaunchTest launch;
    launch.set_test_id(test_id);
    launch.mutable_spec()->set_collective(v1::COLLECTIVE_ALL_REDUCE);
    launch.mutable_spec()->set_min_bytes(1024);
    launch.mutable_spec()->set_max_bytes(1 << 20);
    for (int64_t size = 1024; size <= (1 << 20); size *= 4) launch.add_sizes_bytes(size);
    launch.set_register_timeout_ms(absl::ToInt64Milliseconds(kRegisterTimeout));
    launch.set_init_timeout_ms(30'000);
    launch.set_op_timeout_ms(5'000);
    const int local_ranks = static_cast<int>(devices.size());
    for (int local = 0; local < local_ranks; ++local) {
      v1::RankAssignment& rank = *launch.add_ranks();
      rank.set_rank(local_ranks + local);
      rank.set_world_size(2 * local_ranks);
      rank.set_node_name("node-a");
      rank.set_node_index(1);
      rank.set_local_rank(local);
      rank.set_device_index(devices[static_cast<size_t>(local)]);
    }
    return launch;
  }

  // Launches kTest with ranks 2 and 3 on GPUs 0 and 1 and records the
  // children in rank order.
  void LaunchTwo() {
    supervisor_->Launch(MakeLaunch(kTest, {0, 1}));
    executor_.RunUntilIdle();
    const auto running = launcher_.Running();
    ASSERT_EQ(running.size(), 2u);
    rank2_ = running[0];
    rank3_ = running[1];
  }

  // Token the supervisor put in the environment of `rank`'s spawn.
  std::string TokenOf(int rank) const {
    for (const common::ProcessSpec& spec : launcher_.specs()) {
      if (ArgValue(spec, "rank") == std::to_string(rank)) return EnvValue(spec, "EB_WORKER_TOKEN");
    }
    ADD_FAILURE() << "no spawn for rank " << rank;
    return "";
  }

  absl::StatusOr<v1::RegisterWorkerReply> Register(int rank, const std::string& token = "",
                                                   const std::string& test_id = kTest) {
    v1::RegisterWorkerRequest request;
    request.set_test_id(test_id);
    request.set_rank(rank);
    request.set_worker_token(token.empty() ? TokenOf(rank) : token);
    request.set_pid(1);
    return supervisor_->RegisterWorker(request);
  }

  absl::StatusOr<bool> Beat(int rank, const std::string& token = "") {
    v1::WorkerHeartbeatRequest request;
    request.set_test_id(kTest);
    request.set_rank(rank);
    request.set_worker_token(token.empty() ? TokenOf(rank) : token);
    return supervisor_->Heartbeat(request);
  }

  absl::Status Report(int rank, v1::WorkerEventKind kind, const std::string& token = "") {
    v1::ReportWorkerEventRequest request;
    request.set_worker_token(token.empty() ? TokenOf(rank) : token);
    request.mutable_event()->set_test_id(kTest);
    request.mutable_event()->set_rank(rank);
    request.mutable_event()->set_kind(kind);
    return supervisor_->ReportEvent(request);
  }

  // Makes a child exit and lets the supervisor see it (the exit callback
  // posts onto the executor).
  void Exit(const common::ChildHandle& child, common::ExitInfo info) {
    ASSERT_TRUE(launcher_.Exit(child, info).ok());
    executor_.RunUntilIdle();
  }

  // Signals sent to `child`'s process group, in order.
  std::vector<int> SignalsTo(const common::ChildHandle& child) const {
    std::vector<int> signals;
    for (const auto& call : launcher_.signals()) {
      if (call.child.id == child.id) signals.push_back(call.signal);
    }
    return signals;
  }

  std::string LogPath(int rank) const { return WorkerLogPath(run_dir_, kTest, rank); }

  std::string run_dir_;
  AgentConfig config_;
  FakeClock clock_;
  ManualExecutor executor_;
  FakeProcessLauncher launcher_;
  RecordingSink sink_;
  int tokens_made_ = 0;
  // The agent's: the log directory is really created under run_dir_.
  std::function<absl::Status(const std::string&)> create_directories_ = CreateDirectories;
  // Issue 12's readers; unset unless a test sets them before MakeSupervisor.
  std::function<std::vector<PortSnapshot>()> read_ports_;
  std::function<std::string(const std::string&, bool, size_t)> read_log_;
  std::unique_ptr<WorkerSupervisor> supervisor_;
  common::ChildHandle rank2_;
  common::ChildHandle rank3_;
};

// --- Launch -----------------------------------------------------------------

TEST_F(WorkerSupervisorTest, LaunchSpawnsOneWorkerPerRankWithItsSpec) {
  LaunchTwo();
  ASSERT_EQ(launcher_.specs().size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const common::ProcessSpec& spec = launcher_.specs()[static_cast<size_t>(i)];
    const int rank = 2 + i;
    EXPECT_EQ(spec.executable, "/opt/eb/bin/eb-worker");
    EXPECT_EQ(spec.argv[0], "/opt/eb/bin/eb-worker");
    EXPECT_EQ(ArgValue(spec, "rank"), std::to_string(rank));
    EXPECT_EQ(ArgValue(spec, "test-id"), kTest);
    EXPECT_EQ(ArgValue(spec, "agent-pid"), "4242");
    EXPECT_EQ(ArgValue(spec, "agent"), "unix:/run/eb/agent.sock");
    // Only the identity is on the command line (the rest comes with the
    // registration reply).
    EXPECT_EQ(spec.argv.size(), 5u);
    EXPECT_EQ(spec.log_path, LogPath(rank));
    EXPECT_THAT(spec.env, Contains("NCCL_SOCKET_IFNAME==eth0"));
    EXPECT_THAT(spec.env, Contains("NCCL_DEBUG=WARN"));
    EXPECT_THAT(spec.env, Contains("PATH=/usr/bin"));
    EXPECT_THAT(spec.env, Not(Contains("AWS_SECRET=hunter2")));
  }
  // A fresh token per worker, in its environment.
  EXPECT_EQ(TokenOf(2), "token-1");
  EXPECT_EQ(TokenOf(3), "token-2");
  // The log directory exists before the workers start writing to it.
  EXPECT_TRUE(std::filesystem::is_directory(std::filesystem::path(LogPath(2)).parent_path()));
  EXPECT_EQ(supervisor_->LiveWorkers(), 2);
  EXPECT_THAT(supervisor_->RunningTests(), ElementsAre(kTest));
  EXPECT_THAT(launcher_.signals(), IsEmpty());
  EXPECT_THAT(sink_.messages(), IsEmpty());
}

TEST_F(WorkerSupervisorTest, DuplicateLaunchOfARunningTestIsIgnored) {
  LaunchTwo();
  supervisor_->Launch(MakeLaunch(kTest, {0, 1}));
  executor_.RunUntilIdle();
  EXPECT_EQ(launcher_.specs().size(), 2u);
  EXPECT_EQ(supervisor_->LiveWorkers(), 2);
  EXPECT_THAT(sink_.messages(), IsEmpty());
}

TEST_F(WorkerSupervisorTest, LaunchWithoutRanksAnswersWorkersStoppedAtOnce) {
  supervisor_->Launch(MakeLaunch(kTest, {}));
  executor_.RunUntilIdle();
  EXPECT_THAT(launcher_.specs(), IsEmpty());
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

// --- Registration -------------------------------------------------------------

TEST_F(WorkerSupervisorTest, RegisterWithTheRightTokenReportsRegisteredAndReplies) {
  const v1::LaunchTest launch = MakeLaunch(kTest, {0, 1});
  LaunchTwo();
  auto reply = Register(3);
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->assignment().SerializeAsString(), launch.ranks(1).SerializeAsString());
  EXPECT_EQ(reply->assignment().rank(), 3);
  EXPECT_EQ(reply->assignment().local_rank(), 1);
  EXPECT_EQ(reply->spec().SerializeAsString(), launch.spec().SerializeAsString());
  // Everything the worker needs beyond its identity: its GPU (the
  // assignment's device_index), the coordinator's sweep, its deadlines and
  // the node's bootstrap settings.
  EXPECT_EQ(reply->assignment().device_index(), 1);
  EXPECT_EQ(reply->heartbeat_period_ms(), 1000);
  EXPECT_THAT(reply->sizes_bytes(), ElementsAre(1024, 4096, 16384, 65536, 262144, 1048576));
  EXPECT_EQ(reply->init_timeout_ms(), 30'000);
  EXPECT_EQ(reply->op_timeout_ms(), 5'000);
  EXPECT_EQ(reply->bootstrap_interface(), "eth0");
  EXPECT_EQ(reply->bootstrap_address(), "");

  const auto events = sink_.Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind(), v1::WORKER_EVENT_KIND_REGISTERED);
  EXPECT_EQ(events[0].test_id(), kTest);
  EXPECT_EQ(events[0].rank(), 3);

  // A retried RegisterWorker (the reply was lost) is answered again but not
  // reported twice.
  ASSERT_TRUE(Register(3).ok());
  EXPECT_EQ(sink_.Events().size(), 1u);
}

TEST_F(WorkerSupervisorTest, RegisterWithAWrongTokenIsDenied) {
  LaunchTwo();
  auto expect_denied = [](const absl::StatusOr<v1::RegisterWorkerReply>& reply) {
    EXPECT_EQ(reply.status().code(), absl::StatusCode::kPermissionDenied) << reply.status();
  };
  expect_denied(Register(2, "not-the-token"));
  expect_denied(Register(2, TokenOf(3)));             // Another rank's token.
  expect_denied(Register(7, TokenOf(2)));             // Unknown rank.
  expect_denied(Register(2, TokenOf(2), "t-other"));  // Unknown test.
  {
    v1::RegisterWorkerRequest request;  // No token at all.
    request.set_test_id(kTest);
    request.set_rank(2);
    expect_denied(supervisor_->RegisterWorker(request));
  }
  EXPECT_THAT(std::string(Register(2, "bad").status().message()), HasSubstr("rank 2"));
  EXPECT_THAT(sink_.Events(), IsEmpty());
}

TEST_F(WorkerSupervisorTest, RegisterAfterTheTestStoppedIsAFailedPrecondition) {
  LaunchTwo();
  supervisor_->Stop(kTest, "cancelled");
  EXPECT_EQ(Register(2).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(WorkerSupervisorTest, RegistrationTimeoutReportsKillsAndStopsThePeers) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  sink_.Clear();

  // Rank 2 heartbeats (else the stop would also blame it as stale); rank 3
  // never registers.
  for (int i = 0; i < 9; ++i) {
    executor_.AdvanceTime(kHeartbeatPeriod);
    ASSERT_TRUE(Beat(2).ok());
  }
  executor_.AdvanceTime(kRegisterTimeout - 9 * kHeartbeatPeriod - absl::Milliseconds(1));
  EXPECT_THAT(sink_.messages(), IsEmpty());
  EXPECT_THAT(launcher_.signals(), IsEmpty());

  executor_.AdvanceTime(absl::Milliseconds(1));
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  const v1::WorkerEvent& event = failures[0];
  EXPECT_EQ(event.kind(), v1::WORKER_EVENT_KIND_EXITED);
  EXPECT_EQ(event.test_id(), kTest);
  EXPECT_EQ(event.rank(), 3);
  EXPECT_EQ(event.failure().kind(), v1::FAILURE_KIND_WORKER_REGISTRATION_TIMEOUT);
  EXPECT_EQ(event.failure().rank(), 3);
  EXPECT_EQ(event.failure().node_name(), "node-a");
  EXPECT_EQ(event.failure().local_rank(), 1);
  EXPECT_EQ(event.failure().device_index(), 1);
  EXPECT_THAT(event.failure().message(), HasSubstr("did not register"));
  EXPECT_THAT(event.failure().message(), HasSubstr("10s"));
  EXPECT_THAT(event.failure().message(), HasSubstr(LogPath(3)));

  // Graduated stop of every worker: SIGTERM, SIGCONT (a stopped process
  // only acts on SIGTERM once continued), and no SIGKILL yet.
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));
  EXPECT_THAT(SignalsTo(rank3_), ElementsAre(SIGTERM, SIGCONT));

  executor_.AdvanceTime(kGrace - absl::Milliseconds(1));
  EXPECT_THAT(SignalsTo(rank3_), ElementsAre(SIGTERM, SIGCONT));
  executor_.AdvanceTime(absl::Milliseconds(1));
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT, SIGKILL));
  EXPECT_THAT(SignalsTo(rank3_), ElementsAre(SIGTERM, SIGCONT, SIGKILL));

  // The exits the stop caused are no further failures; one WorkersStopped.
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGKILL));
  EXPECT_THAT(sink_.Stopped(), IsEmpty());
  Exit(rank3_, FakeProcessLauncher::Signaled(SIGKILL));
  EXPECT_EQ(sink_.Failures().size(), 1u);
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_EQ(supervisor_->LiveWorkers(), 0);
  EXPECT_THAT(supervisor_->RunningTests(), IsEmpty());
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

TEST_F(WorkerSupervisorTest, WorkersThatRegisterAndHeartbeatAreLeftAlone) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  for (int i = 0; i < 12; ++i) {
    executor_.AdvanceTime(kHeartbeatPeriod);
    ASSERT_TRUE(Beat(2).ok());
    ASSERT_TRUE(Beat(3).ok());
  }
  EXPECT_THAT(sink_.Failures(), IsEmpty());
  EXPECT_THAT(launcher_.signals(), IsEmpty());
}

TEST_F(WorkerSupervisorTest, NoRegistrationTimeoutAfterStop) {
  LaunchTwo();
  supervisor_->Stop(kTest, "cancelled");
  executor_.AdvanceTime(kRegisterTimeout + absl::Seconds(1));
  EXPECT_THAT(sink_.Failures(), IsEmpty());
}

// --- Crash ------------------------------------------------------------------

TEST_F(WorkerSupervisorTest, CrashIsReportedAndThePeersAreStopped) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  executor_.AdvanceTime(absl::Milliseconds(500));
  sink_.Clear();

  Exit(rank3_, FakeProcessLauncher::Signaled(SIGKILL));
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  const v1::WorkerEvent& event = failures[0];
  EXPECT_EQ(event.kind(), v1::WORKER_EVENT_KIND_EXITED);
  EXPECT_EQ(event.rank(), 3);
  EXPECT_EQ(event.failure().kind(), v1::FAILURE_KIND_WORKER_EXITED);
  EXPECT_EQ(event.failure().rank(), 3);
  EXPECT_EQ(event.failure().node_name(), "node-a");
  EXPECT_EQ(event.failure().local_rank(), 1);
  EXPECT_EQ(event.failure().device_index(), 1);
  EXPECT_EQ(event.failure().signal(), SIGKILL);
  EXPECT_EQ(event.failure().exit_code(), -1);
  EXPECT_THAT(event.failure().message(), HasSubstr("signal 9"));
  EXPECT_THAT(event.failure().message(), HasSubstr(std::to_string(rank3_.pid)));
  EXPECT_THAT(event.failure().message(), HasSubstr(LogPath(3)));

  // The peer is stopped; the dead one is not signalled.
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));
  EXPECT_THAT(SignalsTo(rank3_), IsEmpty());
  EXPECT_THAT(sink_.Stopped(), IsEmpty());
  EXPECT_EQ(Beat(2).value_or(false), true);

  // The peer obeys SIGTERM: not a failure, no SIGKILL, one WorkersStopped.
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGTERM));
  EXPECT_EQ(sink_.Failures().size(), 1u);
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  executor_.AdvanceTime(kGrace * 2);
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
}

TEST_F(WorkerSupervisorTest, NonZeroExitBeforeFinishingFillsTheExitCode) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  Exit(rank2_, FakeProcessLauncher::Code(3));
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_WORKER_EXITED);
  EXPECT_EQ(failures[0].failure().exit_code(), 3);
  EXPECT_EQ(failures[0].failure().signal(), 0);
  EXPECT_THAT(failures[0].failure().message(), HasSubstr("exit code 3"));
  EXPECT_THAT(SignalsTo(rank3_), ElementsAre(SIGTERM, SIGCONT));
}

TEST_F(WorkerSupervisorTest, ExitZeroWithoutFinishedIsStillAFailure) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  Exit(rank2_, FakeProcessLauncher::Code(0));
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_WORKER_EXITED);
  EXPECT_EQ(failures[0].failure().exit_code(), 0);
}

TEST_F(WorkerSupervisorTest, WorkersStoppedCarriesPortDeltasAndTheUnfinishedRanksWarnings) {
  // Issue 12: the ports are read at launch and once every worker is gone;
  // the logs of ranks that did not finish are searched for NCCL warnings.
  int reads = 0;
  read_ports_ = [&reads] {
    PortSnapshot port;
    port.hca = "mlx5_100";
    port.port = 1;
    port.link.set_state("ACTIVE");
    port.counters["symbol_error"] = reads++ == 0 ? 3 : 10;
    return std::vector<PortSnapshot>{port};
  };
  std::vector<std::string> logs_read;
  read_log_ = [&logs_read](const std::string& path, bool from_start, size_t) {
    if (from_start) return std::string();
    logs_read.push_back(path);
    return std::string("h:1:2 [0] net.cc:1 NCCL WARN NET/IB : Got completion with error 12\n");
  };
  MakeSupervisor();
  LaunchTwo();
  EXPECT_EQ(reads, 1);
  ASSERT_TRUE(Register(2).ok());
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGKILL));
  Exit(rank3_, FakeProcessLauncher::Signaled(SIGTERM));
  EXPECT_EQ(reads, 2);
  const v1::AgentMessage& last = sink_.messages().back();
  ASSERT_TRUE(last.has_workers_stopped());
  const v1::NodeTestEvidence& evidence = last.workers_stopped().evidence();
  ASSERT_EQ(evidence.ports_size(), 1);
  EXPECT_EQ(evidence.ports(0).node_name(), "node-a");
  EXPECT_THAT(evidence.ports(0).grown_errors(), ElementsAre("symbol_error +7"));
  ASSERT_EQ(evidence.nccl_warnings_size(), 2);
  EXPECT_EQ(evidence.nccl_warnings(0).rank(), 2);
  EXPECT_EQ(evidence.nccl_warnings(1).rank(), 3);
  EXPECT_THAT(evidence.nccl_warnings(0).lines(0), HasSubstr("NCCL WARN NET/IB"));
  EXPECT_EQ(logs_read.size(), 2u);
}

TEST_F(WorkerSupervisorTest, ExitBeforeRegisteringIsReportedAsExitedNotAsTimeout) {
  LaunchTwo();
  Exit(rank2_, FakeProcessLauncher::Code(127));
  executor_.AdvanceTime(kRegisterTimeout + absl::Seconds(1));
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_WORKER_EXITED);
  EXPECT_EQ(failures[0].failure().exit_code(), 127);
}

// --- Stop ---------------------------------------------------------------------

TEST_F(WorkerSupervisorTest, StopIsGraduatedAndItsExitsAreNotFailures) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  sink_.Clear();

  supervisor_->Stop(kTest, "cancelled by user");
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));
  EXPECT_THAT(SignalsTo(rank3_), ElementsAre(SIGTERM, SIGCONT));
  EXPECT_EQ(Beat(2).value_or(false), true);

  // Rank 2 obeys SIGTERM; rank 3 ignores it.
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGTERM));
  executor_.AdvanceTime(kGrace - absl::Milliseconds(1));
  EXPECT_THAT(SignalsTo(rank3_), ElementsAre(SIGTERM, SIGCONT));
  executor_.AdvanceTime(absl::Milliseconds(1));
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));  // Gone: no SIGKILL.
  EXPECT_THAT(SignalsTo(rank3_), ElementsAre(SIGTERM, SIGCONT, SIGKILL));
  EXPECT_THAT(sink_.Stopped(), IsEmpty());

  Exit(rank3_, FakeProcessLauncher::Signaled(SIGKILL));
  EXPECT_THAT(sink_.Failures(), IsEmpty());
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

TEST_F(WorkerSupervisorTest, StopTwiceSignalsOnceAndStillFinishesOnce) {
  LaunchTwo();
  supervisor_->Stop(kTest, "first");
  supervisor_->Stop(kTest, "second");
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGTERM));
  Exit(rank3_, FakeProcessLauncher::Signaled(SIGTERM));
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_THAT(sink_.Failures(), IsEmpty());
}

TEST_F(WorkerSupervisorTest, StopOfAnUnknownTestStillAnswersWorkersStopped) {
  supervisor_->Stop("t-never-ran", "cleanup");
  EXPECT_THAT(sink_.Stopped(), ElementsAre("t-never-ran"));
  EXPECT_THAT(launcher_.signals(), IsEmpty());

  // Likewise for a test whose workers are already reaped.
  LaunchTwo();
  supervisor_->Stop(kTest, "cancel");
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGTERM));
  Exit(rank3_, FakeProcessLauncher::Signaled(SIGTERM));
  sink_.Clear();
  supervisor_->Stop(kTest, "again");
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
}

TEST_F(WorkerSupervisorTest, StopAllStopsEveryTest) {
  supervisor_->Launch(MakeLaunch("t-a", {0}));
  supervisor_->Launch(MakeLaunch("t-b", {1}));
  const auto running = launcher_.Running();
  ASSERT_EQ(running.size(), 2u);
  supervisor_->StopAll("coordinator lost");
  EXPECT_THAT(SignalsTo(running[0]), ElementsAre(SIGTERM, SIGCONT));
  EXPECT_THAT(SignalsTo(running[1]), ElementsAre(SIGTERM, SIGCONT));
  Exit(running[0], FakeProcessLauncher::Signaled(SIGTERM));
  Exit(running[1], FakeProcessLauncher::Signaled(SIGTERM));
  EXPECT_THAT(sink_.Stopped(), ElementsAre("t-a", "t-b"));
  EXPECT_THAT(sink_.Failures(), IsEmpty());
}

// --- Hang watchdog ------------------------------------------------------------

TEST_F(WorkerSupervisorTest, SilentRegisteredWorkerIsKilledAsHung) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  const absl::Time registered = clock_.Now();
  sink_.Clear();

  // Rank 2 keeps heartbeating; rank 3 goes silent right after registering.
  absl::Duration detected_after = absl::ZeroDuration();
  while (clock_.Now() - registered < 2 * kHangTimeout) {
    executor_.AdvanceTime(absl::Milliseconds(500));
    if (!sink_.Failures().empty()) {
      detected_after = clock_.Now() - registered;
      break;
    }
    ASSERT_TRUE(Beat(2).ok());
  }
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].kind(), v1::WORKER_EVENT_KIND_FAILED);
  EXPECT_EQ(failures[0].rank(), 3);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_WORKER_HUNG);
  EXPECT_EQ(failures[0].failure().rank(), 3);
  EXPECT_EQ(failures[0].failure().node_name(), "node-a");
  EXPECT_EQ(failures[0].failure().local_rank(), 1);
  EXPECT_THAT(failures[0].failure().message(), HasSubstr("heartbeat"));
  EXPECT_THAT(failures[0].failure().message(), HasSubstr(LogPath(3)));
  // Not before the timeout, and within one watchdog period (1 s) after it.
  EXPECT_GT(detected_after, kHangTimeout);
  EXPECT_LE(detected_after, kHangTimeout + absl::Seconds(1) + absl::Milliseconds(500));

  // The hung rank is SIGKILLed at once; the healthy one gets the graduated
  // stop.
  const std::vector<int> hung_signals = SignalsTo(rank3_);
  ASSERT_FALSE(hung_signals.empty());
  EXPECT_EQ(hung_signals.front(), SIGKILL);
  EXPECT_THAT(SignalsTo(rank2_), ElementsAre(SIGTERM, SIGCONT));

  // Its death by SIGKILL is not a second report.
  Exit(rank3_, FakeProcessLauncher::Signaled(SIGKILL));
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGTERM));
  EXPECT_EQ(sink_.Failures().size(), 1u);
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
}

TEST_F(WorkerSupervisorTest, WatchdogIgnoresFinishedWorkers) {
  supervisor_->Launch(MakeLaunch(kTest, {0, 1}));
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Report(2, v1::WORKER_EVENT_KIND_FINISHED).ok());
  ASSERT_TRUE(Register(3).ok());
  // Rank 2 finished and went quiet while it exits; rank 3 keeps beating.
  for (int i = 0; i < 2 * absl::ToInt64Seconds(kHangTimeout); ++i) {
    executor_.AdvanceTime(absl::Seconds(1));
    ASSERT_TRUE(Beat(3).ok());
  }
  EXPECT_THAT(sink_.Failures(), IsEmpty());
  EXPECT_THAT(launcher_.signals(), IsEmpty());
}

TEST_F(WorkerSupervisorTest, StaleWorkerAtStopTimeIsReportedAsHung) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  // Rank 3 is SIGSTOPped: silent for 5 s, well under the hang timeout but
  // more than three heartbeat periods; rank 2 keeps beating.
  for (int i = 0; i < 5; ++i) {
    executor_.AdvanceTime(kHeartbeatPeriod);
    ASSERT_TRUE(Beat(2).ok());
  }
  ASSERT_THAT(sink_.Failures(), IsEmpty());
  supervisor_->Stop(kTest, "rank 0 on node-b reported a timeout");

  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].kind(), v1::WORKER_EVENT_KIND_FAILED);
  EXPECT_EQ(failures[0].rank(), 3);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_WORKER_HUNG);
  EXPECT_EQ(failures[0].failure().node_name(), "node-a");
  EXPECT_THAT(failures[0].failure().message(), HasSubstr("stopped heartbeating 5s"));
  // SIGCONT so the stopped process can act on SIGTERM.
  EXPECT_THAT(SignalsTo(rank3_), ElementsAre(SIGTERM, SIGCONT));
}

TEST_F(WorkerSupervisorTest, FreshWorkersAtStopTimeAreNotBlamed) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  executor_.AdvanceTime(3 * kHeartbeatPeriod);  // Exactly at the limit.
  supervisor_->Stop(kTest, "cancelled");
  EXPECT_THAT(sink_.Failures(), IsEmpty());
}

// --- Duplicate GPU and spawn failures ------------------------------------------

TEST_F(WorkerSupervisorTest, TwoRanksOnOneGpuAreRefusedWithLaunchFailed) {
  supervisor_->Launch(MakeLaunch(kTest, {0, 0}));
  executor_.RunUntilIdle();
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].kind(), v1::WORKER_EVENT_KIND_EXITED);
  EXPECT_EQ(failures[0].rank(), 3);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_LAUNCH_FAILED);
  EXPECT_EQ(failures[0].failure().device_index(), 0);
  EXPECT_THAT(failures[0].failure().message(), HasSubstr("GPU 0"));
  EXPECT_THAT(failures[0].failure().message(), HasSubstr("rank 2"));
  // The duplicate itself is never started; the test does not wait for
  // registrations.
  for (const common::ProcessSpec& spec : launcher_.specs()) {
    EXPECT_NE(ArgValue(spec, "rank"), "3");
  }
  EXPECT_FALSE(Register(2, "token-1").ok());
  // Whatever did start is stopped and reaped, then WorkersStopped.
  executor_.AdvanceTime(kGrace);
  for (const common::ChildHandle& child : launcher_.Running()) {
    EXPECT_THAT(SignalsTo(child), ElementsAre(SIGTERM, SIGCONT, SIGKILL));
    Exit(child, FakeProcessLauncher::Signaled(SIGKILL));
  }
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_EQ(sink_.Failures().size(), 1u);
}

// Regression (fixed): Launch() says it refuses duplicate GPUs "before anything starts", and
// STYLE.md rule 19 says the agent refuses two ranks on one device, but only
// the duplicate rank is skipped: the spawn loop still starts every other rank
// of the refused test (here rank 2 on GPU 0) and then SIGTERMs it, so a
// refused launch briefly runs a CUDA worker, and WorkersStopped waits for it
// to die (up to worker_grace). Proposed fix in WorkerSupervisor::Launch: after
// the duplicate-device scan, if any rank was reported, skip the spawn loop
// entirely (set test.stopping, no timers) and go straight to MaybeFinish(),
// which then answers WorkersStopped at once since nothing was spawned.
TEST_F(WorkerSupervisorTest, TwoRanksOnOneGpuSpawnNothing) {
  supervisor_->Launch(MakeLaunch(kTest, {0, 0}));
  executor_.RunUntilIdle();
  EXPECT_THAT(launcher_.specs(), IsEmpty());
  EXPECT_THAT(launcher_.signals(), IsEmpty());
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

TEST_F(WorkerSupervisorTest, CpuRanksMayShareDeviceMinusOne) {
  supervisor_->Launch(MakeLaunch(kTest, {-1, -1}));
  executor_.RunUntilIdle();
  EXPECT_EQ(launcher_.Running().size(), 2u);
  EXPECT_THAT(sink_.Failures(), IsEmpty());
  ASSERT_TRUE(Register(2).ok());
  EXPECT_EQ(Register(2)->assignment().device_index(), -1);
}

TEST_F(WorkerSupervisorTest, SpawnFailureReportsLaunchFailedAndStopsTheOthers) {
  launcher_.FailNextSpawn(absl::NotFoundError("/opt/eb/bin/eb-worker: No such file"));
  supervisor_->Launch(MakeLaunch(kTest, {0, 1}));
  executor_.RunUntilIdle();

  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].kind(), v1::WORKER_EVENT_KIND_EXITED);
  EXPECT_EQ(failures[0].rank(), 2);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_LAUNCH_FAILED);
  EXPECT_EQ(failures[0].failure().node_name(), "node-a");
  EXPECT_EQ(failures[0].failure().local_rank(), 0);
  EXPECT_THAT(failures[0].failure().message(), HasSubstr("cannot start /opt/eb/bin/eb-worker"));
  EXPECT_THAT(failures[0].failure().message(), HasSubstr("No such file"));

  const auto running = launcher_.Running();
  ASSERT_EQ(running.size(), 1u);
  EXPECT_THAT(SignalsTo(running[0]), ElementsAre(SIGTERM, SIGCONT));
  EXPECT_EQ(Beat(3).value_or(false), true);
  EXPECT_EQ(Register(3).status().code(), absl::StatusCode::kFailedPrecondition);

  // No registration deadline runs for a refused launch.
  executor_.AdvanceTime(kRegisterTimeout + absl::Seconds(1));
  EXPECT_EQ(sink_.Failures().size(), 1u);
  EXPECT_THAT(SignalsTo(running[0]), ElementsAre(SIGTERM, SIGCONT, SIGKILL));
  Exit(running[0], FakeProcessLauncher::Signaled(SIGKILL));
  EXPECT_EQ(sink_.Failures().size(), 1u);
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
}

TEST_F(WorkerSupervisorTest, NothingSpawnedAnswersWorkersStoppedAtOnce) {
  launcher_.FailNextSpawn(absl::PermissionDeniedError("EACCES"));
  supervisor_->Launch(MakeLaunch(kTest, {0}));
  executor_.RunUntilIdle();
  ASSERT_EQ(sink_.Failures().size(), 1u);
  EXPECT_EQ(sink_.Failures()[0].failure().kind(), v1::FAILURE_KIND_LAUNCH_FAILED);
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_THAT(supervisor_->RunningTests(), IsEmpty());
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

TEST_F(WorkerSupervisorTest, UncreatableLogDirectoryFailsEveryRankWithoutSpawning) {
  std::vector<std::string> asked;
  create_directories_ = [&asked](const std::string& path) {
    asked.push_back(path);
    return absl::FailedPreconditionError("Permission denied");
  };
  MakeSupervisor();
  supervisor_->Launch(MakeLaunch(kTest, {0, 1}));
  executor_.RunUntilIdle();
  EXPECT_THAT(asked, ElementsAre(absl::StrCat(run_dir_, "/logs/", kTest)));
  EXPECT_THAT(launcher_.specs(), IsEmpty());
  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 2u);
  for (const v1::WorkerEvent& failure : failures) {
    EXPECT_EQ(failure.failure().kind(), v1::FAILURE_KIND_LAUNCH_FAILED);
    EXPECT_THAT(failure.failure().message(),
                HasSubstr(absl::StrCat("cannot create the log directory under ", run_dir_,
                                       ": Permission denied")));
  }
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

TEST_F(WorkerSupervisorTest, TheGpusBusIdAndTheBootstrapAddressGoInTheReply) {
  config_.bootstrap_interface.clear();
  config_.bootstrap_address = "10.0.0.5";
  MakeSupervisor();
  v1::LaunchTest launch = MakeLaunch(kTest, {0, 3});
  launch.mutable_ranks(1)->set_gpu_pci_bus_id("0000:9a:00.0");
  supervisor_->Launch(launch);
  executor_.RunUntilIdle();
  auto reply = Register(3);
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->assignment().device_index(), 3);
  EXPECT_EQ(reply->assignment().gpu_pci_bus_id(), "0000:9a:00.0");
  EXPECT_EQ(reply->bootstrap_interface(), "");
  EXPECT_EQ(reply->bootstrap_address(), "10.0.0.5");
}

// A launch the agent cannot run as sent (a coordinator of another version,
// or a bug) is refused whole: one failure naming the field, nothing
// spawned, no timer, WorkersStopped at once.
TEST_F(WorkerSupervisorTest, ABadSweepIsRefusedBeforeAnythingStarts) {
  auto refuse = [&](const v1::LaunchTest& launch, const std::string& why) {
    SCOPED_TRACE(why);
    sink_.Clear();
    supervisor_->Launch(launch);
    executor_.RunUntilIdle();
    EXPECT_THAT(launcher_.specs(), IsEmpty());
    const auto failures = sink_.Failures();
    ASSERT_EQ(failures.size(), 1u);
    EXPECT_EQ(failures[0].kind(), v1::WORKER_EVENT_KIND_EXITED);
    EXPECT_EQ(failures[0].rank(), 2);
    EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_LAUNCH_FAILED);
    EXPECT_EQ(failures[0].failure().node_name(), "node-a");
    EXPECT_THAT(failures[0].failure().message(),
                AllOf(HasSubstr("refused the launch, nothing was started"),
                      HasSubstr("INVALID_ARGUMENT: sizes_bytes: "), HasSubstr(why),
                      HasSubstr("same ebnccl version")));
    EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
    EXPECT_THAT(supervisor_->RunningTests(), IsEmpty());
    EXPECT_EQ(executor_.pending_timers(), 0u);
  };
  v1::LaunchTest launch = MakeLaunch(kTest, {0, 1});
  launch.clear_sizes_bytes();  // an older coordinator
  refuse(launch, "no size to run");
  launch = MakeLaunch(kTest, {0, 1});
  for (int i = 0; i < 10'000; ++i) launch.add_sizes_bytes(1 << 20);
  refuse(launch, "10006 sizes; a sweep has at most 10000");
  launch = MakeLaunch(kTest, {0, 1});
  launch.set_sizes_bytes(0, -1024);
  refuse(launch, "size #0 (-1024) is negative");
  launch = MakeLaunch(kTest, {0, 1});
  launch.set_sizes_bytes(2, 2048);
  refuse(launch, "size #2 (2048) is smaller than the size before it (4096)");
  launch = MakeLaunch(kTest, {0, 1});
  launch.mutable_spec()->set_max_bytes(65536);
  refuse(launch, "size #4 (262144) is larger than max_bytes 65536");
}

// --- Events from the worker ---------------------------------------------------

TEST_F(WorkerSupervisorTest, FailedEventIsForwardedOnceWithTheAgentsAttribution) {
  LaunchTwo();
  ASSERT_TRUE(Register(3).ok());
  sink_.Clear();

  v1::ReportWorkerEventRequest request;
  request.set_worker_token(TokenOf(3));
  v1::WorkerEvent& event = *request.mutable_event();
  event.set_test_id(kTest);
  event.set_rank(3);
  event.set_kind(v1::WORKER_EVENT_KIND_FAILED);
  // What the worker claims about where it runs is replaced by the agent.
  event.mutable_failure()->set_kind(v1::FAILURE_KIND_COMMUNICATION_ERROR);
  event.mutable_failure()->set_rank(0);
  event.mutable_failure()->set_node_name("somewhere-else");
  event.mutable_failure()->set_local_rank(7);
  event.mutable_failure()->set_device_index(7);
  event.mutable_failure()->set_message("allreduce: ABORTED: peer rank 0 closed the connection");
  ASSERT_TRUE(supervisor_->ReportEvent(request).ok());
  ASSERT_TRUE(supervisor_->ReportEvent(request).ok());  // Repeated: dropped.

  const auto failures = sink_.Failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].kind(), v1::WORKER_EVENT_KIND_FAILED);
  EXPECT_EQ(failures[0].test_id(), kTest);
  EXPECT_EQ(failures[0].rank(), 3);
  EXPECT_EQ(failures[0].failure().kind(), v1::FAILURE_KIND_COMMUNICATION_ERROR);
  EXPECT_EQ(failures[0].failure().rank(), 3);
  EXPECT_EQ(failures[0].failure().node_name(), "node-a");
  EXPECT_EQ(failures[0].failure().local_rank(), 1);
  EXPECT_EQ(failures[0].failure().device_index(), 1);
  EXPECT_THAT(failures[0].failure().message(), HasSubstr("peer rank 0 closed the connection"));
  EXPECT_THAT(failures[0].failure().message(), HasSubstr(LogPath(3)));

  // The worker then exits non-zero as it said it would: no second report.
  Exit(rank3_, FakeProcessLauncher::Code(1));
  EXPECT_EQ(sink_.Failures().size(), 1u);
}

TEST_F(WorkerSupervisorTest, ProgressEventsAreForwardedAsTheyAre) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  sink_.Clear();
  v1::ReportWorkerEventRequest request;
  request.set_worker_token(TokenOf(2));
  request.mutable_event()->set_test_id(kTest);
  request.mutable_event()->set_rank(2);
  request.mutable_event()->set_kind(v1::WORKER_EVENT_KIND_SIZE_DONE);
  request.mutable_event()->mutable_size_result()->set_size_bytes(1024);
  ASSERT_TRUE(supervisor_->ReportEvent(request).ok());
  ASSERT_TRUE(Report(2, v1::WORKER_EVENT_KIND_JOINED).ok());
  const auto events = sink_.Events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].SerializeAsString(), request.event().SerializeAsString());
  EXPECT_EQ(events[1].kind(), v1::WORKER_EVENT_KIND_JOINED);
}

TEST_F(WorkerSupervisorTest, WorkerMayNotReportAgentOnlyKinds) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  sink_.Clear();
  for (v1::WorkerEventKind kind :
       {v1::WORKER_EVENT_KIND_UNSPECIFIED, v1::WORKER_EVENT_KIND_REGISTERED,
        v1::WORKER_EVENT_KIND_EXITED}) {
    const absl::Status status = Report(2, kind);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << kind;
    EXPECT_THAT(std::string(status.message()), HasSubstr("event.kind"));
  }
  EXPECT_EQ(Report(2, v1::WORKER_EVENT_KIND_JOINED, "forged").code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(sink_.messages(), IsEmpty());
}

TEST_F(WorkerSupervisorTest, FinishedThenCleanExitIsNoFailure) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  ASSERT_TRUE(Register(3).ok());
  ASSERT_TRUE(Report(2, v1::WORKER_EVENT_KIND_FINISHED).ok());
  ASSERT_TRUE(Report(3, v1::WORKER_EVENT_KIND_FINISHED).ok());
  sink_.Clear();
  Exit(rank2_, FakeProcessLauncher::Code(0));
  EXPECT_THAT(sink_.messages(), IsEmpty());
  EXPECT_THAT(launcher_.signals(), IsEmpty());  // Rank 3 is not stopped.
  // Even an unclean exit after FINISHED is only logged.
  Exit(rank3_, FakeProcessLauncher::Code(1));
  EXPECT_THAT(sink_.Failures(), IsEmpty());
  EXPECT_THAT(sink_.Stopped(), ElementsAre(kTest));
  EXPECT_THAT(launcher_.signals(), IsEmpty());
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

// --- Heartbeat and tokens -----------------------------------------------------

TEST_F(WorkerSupervisorTest, HeartbeatSaysStopOnceTheTestIsStopping) {
  LaunchTwo();
  ASSERT_TRUE(Register(2).ok());
  auto beat = Beat(2);
  ASSERT_TRUE(beat.ok()) << beat.status();
  EXPECT_FALSE(*beat);
  EXPECT_EQ(Beat(2, "forged").status().code(), absl::StatusCode::kPermissionDenied);

  supervisor_->Stop(kTest, "cancelled");
  beat = Beat(2);
  ASSERT_TRUE(beat.ok()) << beat.status();
  EXPECT_TRUE(*beat);
}

TEST_F(WorkerSupervisorTest, CheckTokenAcceptsOnlyLiveWorkersOfThatTest) {
  LaunchTwo();
  EXPECT_TRUE(supervisor_->CheckToken(TokenOf(2), kTest).ok());
  EXPECT_TRUE(supervisor_->CheckToken(TokenOf(3), kTest).ok());
  EXPECT_EQ(supervisor_->CheckToken("forged", kTest).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(supervisor_->CheckToken("", kTest).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(supervisor_->CheckToken(TokenOf(2), "t-other").code(),
            absl::StatusCode::kPermissionDenied);
  // A dead worker's token no longer opens the rendezvous relay.
  Exit(rank2_, FakeProcessLauncher::Signaled(SIGKILL));
  EXPECT_EQ(supervisor_->CheckToken(TokenOf(2), kTest).code(), absl::StatusCode::kPermissionDenied);
}

TEST_F(WorkerSupervisorTest, DestructionCancelsEveryTimer) {
  LaunchTwo();
  ASSERT_GT(executor_.pending_timers(), 0u);
  supervisor_.reset();
  EXPECT_EQ(executor_.pending_timers(), 0u);
  // Nothing is left to fire into the destroyed supervisor.
  executor_.AdvanceTime(kHangTimeout * 2);
  EXPECT_THAT(sink_.messages(), IsEmpty());
  EXPECT_THAT(launcher_.signals(), IsEmpty());
}

}  // namespace
}  // namespace eb::agent
