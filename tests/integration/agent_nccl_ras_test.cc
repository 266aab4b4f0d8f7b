// Issue 12, part 5, end to end through a real agent: an AgentServer in this
// process, started by a scripted coordinator (a gRPC AgentService on
// loopback), launches an NCCL test whose real eb-worker registers and then
// hangs before joining (EB_WORKER_FAULT=hang_before_join, so that no GPU is
// needed). When the coordinator stops the test, the agent asks RAS on the
// test's port before signalling the worker, and WorkersStopped carries the
// reply. The RAS server is tests/testutil/fake_nccl_ras_server.h, which
// speaks NCCL 2.28's protocol but is not NCCL: CI has no GPU. The real RAS
// is checked on the GPU machine (tests/gpu/device_run.sh, phase ras).

#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "agent/agent_server.h"
#include "agent/config.h"
#include "common/rpc/server.h"
#include "ebnccl/v1/agent.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testutil/fake_nccl_ras_server.h"

namespace eb::agent {
namespace {

namespace v1 = ebnccl::v1;
using ::eb::testing::FakeNcclRasServer;
using ::testing::HasSubstr;

constexpr absl::Duration kRasWait = absl::Seconds(30);

constexpr char kIncompleteStatus[] =
    "Job summary\n"
    "===========\n"
    "\n"
    "Errors\n"
    "======\n"
    "\n"
    "INCOMPLETE\n"
    "  Missing communicator data from 1 job process\n"
    "  Process 4242 on node 127.0.0.1 managing GPU 0\n";

// Registers the agent, sends what the test queues, records what comes back.
class ScriptedCoordinator final : public v1::AgentService::Service {
 public:
  grpc::Status Session(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::CoordinatorMessage, v1::AgentMessage>* stream) override {
    v1::AgentMessage hello;
    if (!stream->Read(&hello)) return grpc::Status::CANCELLED;
    v1::CoordinatorMessage reply;
    reply.mutable_register_reply()->set_heartbeat_period_ms(200);
    stream->Write(reply);
    std::atomic<bool> done{false};
    std::thread writer([&] {
      while (!done && !context->IsCancelled()) {
        v1::CoordinatorMessage command;
        {
          absl::MutexLock lock(&mu_);
          auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !queue_.empty(); };
          if (!mu_.AwaitWithTimeout(absl::Condition(&ready), absl::Milliseconds(50))) continue;
          command = std::move(queue_.front());
          queue_.erase(queue_.begin());
        }
        if (!stream->Write(command)) return;
      }
    });
    v1::AgentMessage message;
    while (stream->Read(&message)) {
      absl::MutexLock lock(&mu_);
      received_.push_back(message);
    }
    done = true;
    writer.join();
    return grpc::Status::OK;
  }

  void Send(v1::CoordinatorMessage message) {
    absl::MutexLock lock(&mu_);
    queue_.push_back(std::move(message));
  }

  // The first message for which `match` holds, waiting up to kRasWait; false
  // when none came.
  bool Await(const std::function<bool(const v1::AgentMessage&)>& match, v1::AgentMessage* out) {
    absl::MutexLock lock(&mu_);
    auto found = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      for (const v1::AgentMessage& m : received_) {
        if (match(m)) {
          *out = m;
          return true;
        }
      }
      return false;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&found), kRasWait);
  }

 private:
  absl::Mutex mu_;
  std::vector<v1::CoordinatorMessage> queue_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::AgentMessage> received_ ABSL_GUARDED_BY(mu_);
};

TEST(AgentNcclRasTest, AStoppedNcclTestCarriesTheRasStatusAskedBeforeTheStop) {
  std::string dir = absl::StrCat(::testing::TempDir(), "/eb_agent_ras_XXXXXX");
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  FakeNcclRasServer ras(FakeNcclRasServer::Mode::kNccl2283, kIncompleteStatus);
  ScriptedCoordinator coordinator;
  auto server = common::RpcServer::Start({"127.0.0.1:0", {&coordinator}});
  ASSERT_TRUE(server.ok()) << server.status();

  AgentConfig config;
  config.coordinator_address = absl::StrCat("127.0.0.1:", (*server)->port());
  config.node_name = "node-a";
  config.worker_slots = 1;
  config.worker_binary = EB_BIN_DIR "/eb-worker";
  config.run_dir = dir + "/run";
  config.worker_grace = absl::Seconds(2);
  config.nccl_ras_port_base = ras.port();
  config.worker_env = {"EB_WORKER_FAULT=hang_before_join"};
  auto agent = AgentServer::Start(config, {"PATH=/usr/bin:/bin"});
  ASSERT_TRUE(agent.ok()) << agent.status();

  v1::CoordinatorMessage launch;
  v1::LaunchTest& test = *launch.mutable_launch();
  test.set_test_id("t-ras");
  test.mutable_spec()->set_transport(v1::TRANSPORT_NCCL);
  test.mutable_spec()->set_collective(v1::COLLECTIVE_ALL_REDUCE);
  test.mutable_spec()->set_min_bytes(1024);
  test.mutable_spec()->set_max_bytes(1024);
  test.add_sizes_bytes(1024);
  test.set_register_timeout_ms(20'000);
  test.set_init_timeout_ms(20'000);
  test.set_op_timeout_ms(20'000);
  v1::RankAssignment& rank = *test.add_ranks();
  rank.set_rank(0);
  rank.set_world_size(1);
  rank.set_node_name("node-a");
  rank.set_local_rank(0);
  rank.set_device_index(0);
  coordinator.Send(launch);

  v1::AgentMessage message;
  ASSERT_TRUE(coordinator.Await(
      [](const v1::AgentMessage& m) {
        return m.has_worker_event() && m.worker_event().kind() == v1::WORKER_EVENT_KIND_REGISTERED;
      },
      &message));
  v1::CoordinatorMessage stop;
  stop.mutable_stop()->set_test_id("t-ras");
  stop.mutable_stop()->set_reason("the test timed out");
  coordinator.Send(stop);
  ASSERT_TRUE(coordinator.Await([](const v1::AgentMessage& m) { return m.has_workers_stopped(); },
                                &message));
  const v1::NcclRasStatus& status = message.workers_stopped().evidence().nccl_ras();
  EXPECT_EQ(status.node_name(), "node-a");
  EXPECT_EQ(status.port(), ras.port());
  EXPECT_EQ(status.text(), kIncompleteStatus);
  EXPECT_EQ(status.error(), "");
  agent->reset();
  (*server)->Shutdown(absl::Seconds(1));
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

}  // namespace
}  // namespace eb::agent
