#pragma once

// The WorkerSupervisor fixture of worker_supervisor_test.cc and
// worker_supervisor_failure_test.cc: FakeProcessLauncher + FakeClock +
// ManualExecutor (STYLE.md section 6), a sink that records what the
// supervisor tells the coordinator, and helpers. No sleeps: time moves only
// through ManualExecutor.

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

namespace eb::agent::supervisor_test {

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
using ::testing::UnorderedElementsAre;

inline constexpr char kTest[] = "t-1";
inline constexpr absl::Duration kRegisterTimeout = absl::Seconds(10);
inline constexpr absl::Duration kGrace = absl::Seconds(5);
inline constexpr absl::Duration kHeartbeatPeriod = absl::Seconds(1);
inline constexpr absl::Duration kHangTimeout = absl::Seconds(30);

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

inline std::string EnvValue(const common::ProcessSpec& spec, const std::string& name) {
  const std::string prefix = name + "=";
  for (const std::string& entry : spec.env) {
    if (absl::StartsWith(entry, prefix)) return entry.substr(prefix.size());
  }
  return "";
}

inline std::string ArgValue(const common::ProcessSpec& spec, const std::string& flag) {
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
    environment.query_ras = query_ras_;
    environment.open_worker_endpoint = open_worker_endpoint_;
    environment.running_tests_changed = [this](const std::vector<std::string>& ids) {
      running_tests_told_.push_back(ids);
    };
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
  AgentCoreConfig config_;
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
  std::function<void(int, std::function<void(NcclRasExchange)>)> query_ras_;
  std::function<absl::StatusOr<std::string>()> open_worker_endpoint_;
  // Each list running_tests_changed was told, in order.
  std::vector<std::vector<std::string>> running_tests_told_;
  std::unique_ptr<WorkerSupervisor> supervisor_;
  common::ChildHandle rank2_;
  common::ChildHandle rank3_;
};

// --- Launch -----------------------------------------------------------------

}  // namespace eb::agent::supervisor_test
