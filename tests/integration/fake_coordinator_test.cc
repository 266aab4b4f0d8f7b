// The agent trusts nothing a coordinator sends (docs/SECURITY_FINDINGS.md in
// ../shared/docs, cases 1-5): a real AgentServer, in this process, talks to a
// fake coordinator (a gRPC AgentService on loopback speaking our protos)
// that sends what an attacker at the coordinator's address would. Each
// refusal comes back naming the field; nothing is spawned and no file is
// created; the agent keeps its session and keeps heartbeating.

#include <sys/stat.h>

#include <atomic>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "agent/agent_server.h"
#include "agent/config.h"
#include "common/rpc/server.h"
#include "common/spec/limits.h"
#include "ebnccl/v1/agent.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

constexpr absl::Duration kWait = absl::Seconds(20);

// Answers every registration with `heartbeat_period_ms`, then sends what the
// test queues and records what the agent sends.
class FakeCoordinator final : public v1::AgentService::Service {
 public:
  explicit FakeCoordinator(int64_t heartbeat_period_ms) : period_ms_(heartbeat_period_ms) {}

  grpc::Status Session(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::CoordinatorMessage, v1::AgentMessage>* stream) override {
    v1::AgentMessage hello;
    if (!stream->Read(&hello)) return grpc::Status::CANCELLED;
    v1::CoordinatorMessage reply;
    reply.mutable_register_reply()->set_heartbeat_period_ms(period_ms_);
    stream->Write(reply);
    {
      absl::MutexLock lock(&mu_);
      ++registrations_;
    }
    // Sends queued commands from a second thread while this one reads.
    std::atomic<bool> done{false};
    std::thread writer([&] {
      while (!done && !context->IsCancelled()) {
        v1::CoordinatorMessage command;
        {
          absl::MutexLock lock(&mu_);
          auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !queue_.empty(); };
          if (!mu_.AwaitWithTimeout(absl::Condition(&ready), absl::Milliseconds(50))) continue;
          command = std::move(queue_.front());
          queue_.pop_front();
        }
        if (!stream->Write(command)) return;
      }
    });
    v1::AgentMessage message;
    while (AwaitReading(context) && stream->Read(&message)) {
      absl::MutexLock lock(&mu_);
      if (message.has_heartbeat()) ++heartbeats_;
      received_.push_back(message);
    }
    done = true;
    writer.join();
    absl::MutexLock lock(&mu_);
    ++sessions_ended_;
    return grpc::Status::OK;
  }

  // While paused, the session reads nothing from the agent: its writes
  // back up (a coordinator that does not read its stream, P2-P13).
  void PauseReading(bool paused) {
    absl::MutexLock lock(&mu_);
    reading_paused_ = paused;
  }

  void Send(v1::CoordinatorMessage message) {
    absl::MutexLock lock(&mu_);
    queue_.push_back(std::move(message));
  }

  // Waits until `pred` holds for what was received; false after kWait.
  bool Await(std::function<bool(const std::vector<v1::AgentMessage>&, int heartbeats,
                                int registrations, int ended)>
                 pred) {
    absl::MutexLock lock(&mu_);
    auto holds = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return pred(received_, heartbeats_, registrations_, sessions_ended_);
    };
    return mu_.AwaitWithTimeout(absl::Condition(&holds), kWait);
  }

  // Waits while reading is paused; false when the call ended meanwhile.
  bool AwaitReading(grpc::ServerContext* context) {
    absl::MutexLock lock(&mu_);
    auto resumed = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !reading_paused_; };
    while (!mu_.AwaitWithTimeout(absl::Condition(&resumed), absl::Milliseconds(50))) {
      if (context->IsCancelled()) return false;
    }
    return true;
  }

  int heartbeats() {
    absl::MutexLock lock(&mu_);
    return heartbeats_;
  }

 private:
  const int64_t period_ms_;
  absl::Mutex mu_;
  std::deque<v1::CoordinatorMessage> queue_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::AgentMessage> received_ ABSL_GUARDED_BY(mu_);
  int heartbeats_ ABSL_GUARDED_BY(mu_) = 0;
  int registrations_ ABSL_GUARDED_BY(mu_) = 0;
  int sessions_ended_ ABSL_GUARDED_BY(mu_) = 0;
  bool reading_paused_ ABSL_GUARDED_BY(mu_) = false;
};

class FakeCoordinatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir_template = absl::StrCat(::testing::TempDir(), "/eb_fake_coord_XXXXXX");
    ASSERT_NE(mkdtemp(dir_template.data()), nullptr);
    base_ = dir_template;
    // A "worker" that only proves it was started.
    worker_ = base_ + "/worker.sh";
    std::ofstream(worker_) << "#!/bin/sh\ntouch " << base_ << "/spawned\nsleep 30\n";
    ASSERT_EQ(chmod(worker_.c_str(), 0755), 0);
  }
  void TearDown() override {
    agent_.reset();
    if (server_) server_->Shutdown(absl::Seconds(1));
    std::error_code ignored;
    std::filesystem::remove_all(base_, ignored);
  }

  void Start(int64_t heartbeat_period_ms, int slots = 1) {
    coordinator_ = std::make_unique<FakeCoordinator>(heartbeat_period_ms);
    auto server = common::RpcServer::Start({"127.0.0.1:0", {coordinator_.get()}});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    AgentConfig config;
    config.coordinator_address = absl::StrCat("127.0.0.1:", server_->port());
    config.node_name = "node-a";
    config.worker_slots = slots;
    config.worker_binary = worker_;
    config.run_dir = base_ + "/run";
    config.worker_grace = absl::Milliseconds(200);
    config.reconnect_initial = absl::Milliseconds(200);
    config.reconnect_max = absl::Milliseconds(400);
    auto agent = AgentServer::Start(config, {"PATH=/usr/bin:/bin"});
    ASSERT_TRUE(agent.ok()) << agent.status();
    agent_ = *std::move(agent);
  }

  static v1::CoordinatorMessage Launch(const std::string& test_id, int ranks) {
    v1::CoordinatorMessage message;
    v1::LaunchTest& launch = *message.mutable_launch();
    launch.set_test_id(test_id);
    launch.mutable_spec()->set_min_bytes(1024);
    launch.mutable_spec()->set_max_bytes(1024);
    launch.add_sizes_bytes(1024);
    launch.set_register_timeout_ms(10'000);
    launch.set_init_timeout_ms(10'000);
    launch.set_op_timeout_ms(10'000);
    for (int i = 0; i < ranks; ++i) {
      v1::RankAssignment& rank = *launch.add_ranks();
      rank.set_rank(i);
      rank.set_world_size(ranks);
      rank.set_node_name("node-a");
      rank.set_local_rank(i);
      rank.set_device_index(-1);
    }
    return message;
  }

  static v1::CoordinatorMessage Fetch(uint64_t id, const std::string& test_id, int64_t max_bytes) {
    v1::CoordinatorMessage message;
    v1::FetchLog& fetch = *message.mutable_fetch_log();
    fetch.set_request_id(id);
    fetch.set_test_id(test_id);
    fetch.set_rank(0);
    fetch.set_max_bytes(max_bytes);
    return message;
  }

  // The failure message the agent sent back for a refused launch.
  std::string AwaitRefusal(const std::string& test_id) {
    std::string message;
    EXPECT_TRUE(coordinator_->Await([&](const auto& received, int, int, int) {
      for (const v1::AgentMessage& m : received) {
        if (m.has_worker_event() && m.worker_event().test_id() == test_id &&
            m.worker_event().failure().kind() == v1::FAILURE_KIND_LAUNCH_FAILED) {
          message = m.worker_event().failure().message();
          return true;
        }
      }
      return false;
    }));
    return message;
  }

  v1::LogContent AwaitLog(uint64_t id) {
    v1::LogContent content;
    EXPECT_TRUE(coordinator_->Await([&](const auto& received, int, int, int) {
      for (const v1::AgentMessage& m : received) {
        if (m.has_log_content() && m.log_content().request_id() == id) {
          content = m.log_content();
          return true;
        }
      }
      return false;
    }));
    return content;
  }

  // Still connected: more heartbeats arrive.
  void ExpectStillHeartbeating() {
    const int before = coordinator_->heartbeats();
    EXPECT_TRUE(coordinator_->Await(
        [before](const auto&, int heartbeats, int, int) { return heartbeats >= before + 2; }));
  }

  bool Spawned() const { return std::filesystem::exists(base_ + "/spawned"); }

  std::string base_;
  std::string worker_;
  std::unique_ptr<FakeCoordinator> coordinator_;
  std::unique_ptr<common::RpcServer> server_;
  std::unique_ptr<AgentServer> agent_;
};

// Case 1: LD_PRELOAD reached a worker running as root.
TEST_F(FakeCoordinatorTest, Case1LdPreloadIsRefusedAndNothingStarts) {
  Start(200);
  v1::CoordinatorMessage launch = Launch("t-1", 1);
  (*launch.mutable_launch()->mutable_spec()->mutable_nccl_env())["LD_PRELOAD"] = "/tmp/evil.so";
  coordinator_->Send(launch);
  EXPECT_THAT(AwaitRefusal("t-1"),
              AllOf(HasSubstr("refused the launch, nothing was started"),
                    HasSubstr("spec.nccl_env: LD_PRELOAD may not be set by a test")));
  EXPECT_FALSE(Spawned());
  EXPECT_FALSE(std::filesystem::exists(base_ + "/run/logs/t-1"));
  ExpectStillHeartbeating();
}

// Case 2: a test id with "../" read /etc/shadow and created files outside
// the run directory.
TEST_F(FakeCoordinatorTest, Case2PathTestIdsReadAndCreateNothing) {
  Start(200);
  coordinator_->Send(Fetch(1, std::string("../../../../../../../../etc/shadow\0", 35), 4096));
  const v1::LogContent content = AwaitLog(1);
  EXPECT_THAT(content.error(), HasSubstr("fetch_log.test_id: "));
  EXPECT_THAT(content.content(), IsEmpty());
  coordinator_->Send(Launch("../../escaped", 1));
  EXPECT_THAT(AwaitRefusal("../../escaped"), HasSubstr("test_id: "));
  EXPECT_FALSE(Spawned());
  EXPECT_FALSE(std::filesystem::exists(base_ + "/escaped"));
  ExpectStillHeartbeating();
}

// Case 3: 200 ranks for a 1-slot agent spawned 123 workers.
TEST_F(FakeCoordinatorTest, Case3MoreRanksThanSlotsIsRefused) {
  Start(200, /*slots=*/1);
  coordinator_->Send(Launch("t-3", 200));
  EXPECT_THAT(AwaitRefusal("t-3"),
              HasSubstr("ranks: 200 ranks for this node, which has 1 worker slots"));
  EXPECT_FALSE(Spawned());
  ExpectStillHeartbeating();
}

// Case 4: max_bytes = -1 aborted the agent (SIGABRT).
TEST_F(FakeCoordinatorTest, Case4NegativeMaxBytesIsRefusedAndTheAgentLives) {
  Start(200);
  coordinator_->Send(Fetch(4, "t-4", -1));
  EXPECT_THAT(AwaitLog(4).error(), HasSubstr("fetch_log.max_bytes: must be 1 to 1048576, got -1"));
  coordinator_->Send(Fetch(5, "t-4", int64_t{1} << 40));
  EXPECT_THAT(AwaitLog(5).error(), HasSubstr("fetch_log.max_bytes: "));
  ExpectStillHeartbeating();
}

// Case 5: heartbeat_period_ms = 0 made the agent spin at 65% CPU. The agent
// ends that session instead (and retries with its backoff): no heartbeat
// is ever sent at period 0.
TEST_F(FakeCoordinatorTest, Case5HeartbeatPeriodZeroEndsTheSessionWithoutSpinning) {
  Start(0);
  EXPECT_TRUE(coordinator_->Await([](const auto&, int, int registrations, int ended) {
    return registrations >= 2 && ended >= 2;
  }));
  EXPECT_EQ(coordinator_->heartbeats(), 0);
}

}  // namespace
}  // namespace eb::agent

namespace eb::agent {
namespace {

// Waits up to kWait until `count` workers have left their spawned.PID file
// in `dir` (their own effect, outside the stream); false if they never do.
bool AwaitSpawnedWorkers(const std::string& dir, int count) {
  const absl::Time deadline = absl::Now() + kWait;
  while (true) {
    int spawned = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().filename().string().rfind("spawned.", 0) == 0) ++spawned;
    }
    if (spawned >= count) return true;
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(10));
  }
}

// P2-P13: a coordinator that stops reading the agent's stream and asks for
// 300 log pages of 1 MiB. The agent holds at most kMaxQueuedLogPageBytes of
// pages for it (it held all 300 MiB before) and still answers every request:
// a page beyond the limit with an error that says why.
TEST_F(FakeCoordinatorTest, P2P13LogPagesForACoordinatorThatDoesNotReadAreBounded) {
  // Each worker writes 2 MiB to its log and leaves a file named by its pid.
  std::ofstream(worker_, std::ios::trunc)
      << "#!/bin/sh\nhead -c 2097152 /dev/zero | tr '\\0' x\ntouch " << base_
      << "/spawned.$$\nsleep 30\n";
  Start(200, /*slots=*/2);
  coordinator_->Send(Launch("t-log", 1));
  // One page read while the coordinator reads: the log is there, 1 MiB a page.
  for (uint64_t id = 1;; ++id) {
    coordinator_->Send(Fetch(id, "t-log", spec::kMaxLogPageBytes));
    const v1::LogContent page = AwaitLog(id);
    if (static_cast<int64_t>(page.content().size()) == spec::kMaxLogPageBytes) break;
    ASSERT_LT(id, 2000u) << "the worker's log never reached 1 MiB: " << page.error();
  }
  constexpr uint64_t kFirst = 10'000;
  constexpr int kPages = 300;
  coordinator_->PauseReading(true);
  for (int i = 0; i < kPages; ++i) {
    coordinator_->Send(Fetch(kFirst + i, "t-log", spec::kMaxLogPageBytes));
  }
  // The agent handles commands in order: once the launch sent after the
  // requests has started its worker, every request has been answered.
  coordinator_->Send(Launch("t-marker", 1));
  ASSERT_TRUE(AwaitSpawnedWorkers(base_, 2))
      << "the launch after the log requests never started its worker";
  coordinator_->PauseReading(false);

  int full = 0;
  int refused = 0;
  ASSERT_TRUE(coordinator_->Await([&](const auto& received, int, int, int) {
    full = 0;
    refused = 0;
    for (const v1::AgentMessage& m : received) {
      if (!m.has_log_content() || m.log_content().request_id() < kFirst) continue;
      if (static_cast<int64_t>(m.log_content().content().size()) == spec::kMaxLogPageBytes) {
        ++full;
      } else if (absl::StrContains(m.log_content().error(), "wait for the coordinator to read")) {
        ++refused;
      }
    }
    return full + refused == kPages;
  })) << full
      << " pages and " << refused << " refusals of " << kPages;
  // What gRPC's flow control took before the agent's outbox filled, then
  // the outbox's limit: nowhere near the 300 pages asked for.
  EXPECT_GE(full, 1);
  EXPECT_LE(full, spec::kMaxQueuedLogPageBytes / spec::kMaxLogPageBytes + 16);
  EXPECT_GE(refused, kPages - 32);
  ExpectStillHeartbeating();
}

}  // namespace
}  // namespace eb::agent
