// CoordinatorSession against a scripted coordinator on loopback (a real
// gRPC server on port 0): a session that registered and then ends is
// reported as lost (the agent stops its workers on that), one the
// coordinator refuses is not, commands reach the agent, and the session
// reconnects and registers again.

#include "agent/grpc/coordinator_session.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "common/rpc/channel.h"
#include "common/rpc/server.h"
#include "gtest/gtest.h"
#include "tests/unit/agent/worker_event_test_util.h"

namespace eb::agent {
namespace {

namespace v1 = ebnccl::v1;
constexpr absl::Duration kWait = absl::Seconds(10);

// Each Session call takes the next step of `script`: kAcceptThenEnd
// registers the agent, sends one stop command and ends the stream;
// kRefuse fails the call with ALREADY_EXISTS; kAcceptAndHold registers and
// keeps the stream open until the client goes.
class ScriptedCoordinator final : public v1::AgentService::Service {
 public:
  enum class Step { kAcceptThenEnd, kRefuse, kAcceptAndHold };
  explicit ScriptedCoordinator(std::vector<Step> script) : script_(std::move(script)) {}

  grpc::Status Session(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::CoordinatorMessage, v1::AgentMessage>* stream) override {
    v1::AgentMessage hello;
    if (!stream->Read(&hello) || !hello.has_register_()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no registration");
    }
    Step step;
    {
      absl::MutexLock lock(&mu_);
      registrations_.push_back(hello.register_().node_name());
      step = calls_ < script_.size() ? script_[calls_] : Step::kAcceptAndHold;
      ++calls_;
    }
    if (step == Step::kRefuse) {
      return grpc::Status(grpc::StatusCode::ALREADY_EXISTS,
                          "node name 'n1' is already registered by a live agent");
    }
    v1::CoordinatorMessage reply;
    reply.mutable_register_reply()->set_heartbeat_period_ms(250);
    stream->Write(reply);
    if (step == Step::kAcceptThenEnd) {
      v1::CoordinatorMessage stop;
      stop.mutable_stop()->set_test_id("t-1");
      stream->Write(stop);
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "the coordinator is going away");
    }
    v1::AgentMessage received;
    while (!context->IsCancelled() && stream->Read(&received)) {
      absl::MutexLock lock(&mu_);
      received_.push_back(received);
    }
    return grpc::Status::OK;
  }

  // Waits until the messages after registration hold `events` worker events
  // and `heartbeats` heartbeats in all, then returns them.
  std::vector<v1::AgentMessage> AwaitReceived(int events, int heartbeats) {
    absl::MutexLock lock(&mu_);
    auto reached = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      int e = 0;
      int h = 0;
      for (const v1::AgentMessage& m : received_) {
        e += m.has_worker_event() ? 1 : m.worker_events().events_size();
        h += m.has_heartbeat() ? 1 : 0;
      }
      return e >= events && h >= heartbeats;
    };
    mu_.AwaitWithTimeout(absl::Condition(&reached), kWait);
    return received_;
  }

  std::vector<std::string> registrations() {
    absl::MutexLock lock(&mu_);
    return registrations_;
  }

 private:
  absl::Mutex mu_;
  std::vector<Step> script_;
  size_t calls_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::string> registrations_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::AgentMessage> received_ ABSL_GUARDED_BY(mu_);
};

// What the callbacks saw, with a way to wait for a count.
struct Recorder {
  absl::Mutex mu;
  int connected ABSL_GUARDED_BY(mu) = 0;
  std::vector<absl::Status> disconnected ABSL_GUARDED_BY(mu);
  std::vector<std::string> stops ABSL_GUARDED_BY(mu);

  bool AwaitConnected(int count) {
    absl::MutexLock lock(&mu);
    auto reached = [this, count]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return connected >= count; };
    return mu.AwaitWithTimeout(absl::Condition(&reached), kWait);
  }

  CoordinatorSession::Callbacks Callbacks(bool heartbeats = false) {
    CoordinatorSession::Callbacks callbacks;
    callbacks.make_registration = [] {
      v1::RegisterAgent registration;
      registration.set_node_name("n1");
      return registration;
    };
    callbacks.on_connected = [this](absl::Duration) {
      absl::MutexLock lock(&mu);
      ++connected;
    };
    callbacks.on_command = [this](const v1::CoordinatorMessage& command) {
      absl::MutexLock lock(&mu);
      if (command.has_stop()) stops.push_back(command.stop().test_id());
    };
    callbacks.on_disconnected = [this](const absl::Status& status) {
      absl::MutexLock lock(&mu);
      disconnected.push_back(status);
    };
    if (heartbeats) {
      callbacks.fill_heartbeat = [](v1::AgentHeartbeat* heartbeat) {
        heartbeat->add_running_test_ids("t-7");
      };
    }
    return callbacks;
  }
};

class CoordinatorSessionTest : public ::testing::Test {
 protected:
  void Serve(std::vector<ScriptedCoordinator::Step> script) {
    coordinator_ = std::make_unique<ScriptedCoordinator>(std::move(script));
    auto server = common::RpcServer::Start({"127.0.0.1:0", {coordinator_.get()}});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }

  std::unique_ptr<CoordinatorSession> Connect(
      absl::Duration linger = CoordinatorSession::kDefaultWorkerEventLinger,
      bool heartbeats = false) {
    auto session = std::make_unique<CoordinatorSession>(
        common::MakeChannel(absl::StrCat("127.0.0.1:", server_->port())),
        recorder_.Callbacks(heartbeats), absl::Milliseconds(5), absl::Milliseconds(20), linger);
    session->Start();
    return session;
  }

  std::unique_ptr<ScriptedCoordinator> coordinator_;
  std::unique_ptr<common::RpcServer> server_;
  Recorder recorder_;
};

TEST_F(CoordinatorSessionTest, ARegisteredSessionThatEndsIsReportedAndReconnects) {
  using Step = ScriptedCoordinator::Step;
  Serve({Step::kAcceptThenEnd, Step::kAcceptAndHold});
  auto session = Connect();
  // Registered twice: the first session ended, the second holds.
  ASSERT_TRUE(recorder_.AwaitConnected(2));
  session->Stop();
  absl::MutexLock lock(&recorder_.mu);
  ASSERT_EQ(recorder_.disconnected.size(), 1u);
  EXPECT_EQ(recorder_.disconnected[0].code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(recorder_.stops, std::vector<std::string>{"t-1"});
}

TEST_F(CoordinatorSessionTest, ARefusedRegistrationIsNotALostSession) {
  using Step = ScriptedCoordinator::Step;
  Serve({Step::kRefuse, Step::kRefuse, Step::kAcceptAndHold});
  auto session = Connect();
  ASSERT_TRUE(recorder_.AwaitConnected(1));
  EXPECT_TRUE(session->connected());
  session->Stop();
  EXPECT_EQ(coordinator_->registrations().size(), 3u);
  absl::MutexLock lock(&recorder_.mu);
  // Never registered in the refused attempts: nothing to report as lost.
  EXPECT_TRUE(recorder_.disconnected.empty());
}

v1::AgentMessage Event(int rank) {
  v1::AgentMessage message;
  message.mutable_worker_event()->set_test_id("t-1");
  message.mutable_worker_event()->set_rank(rank);
  message.mutable_worker_event()->set_kind(v1::WORKER_EVENT_KIND_JOINED);
  return message;
}

using test::Ranks;

// The ranks of a node that reach a phase together cost the coordinator one
// message: events queued within the linger go as one batch, in order, and a
// heartbeat between them keeps its place.
TEST_F(CoordinatorSessionTest, WorkerEventsQueuedTogetherGoAsOneBatchInOrder) {
  Serve({ScriptedCoordinator::Step::kAcceptAndHold});
  // A linger far above the microseconds the 11 sends take, even under a
  // sanitizer on a loaded machine: the batches below are exact.
  auto session = Connect(absl::Milliseconds(500));
  ASSERT_TRUE(recorder_.AwaitConnected(1));
  for (int rank = 0; rank < 8; ++rank) session->SendToCoordinator(Event(rank));
  v1::AgentMessage heartbeat;
  heartbeat.mutable_heartbeat()->set_sequence(1);
  session->SendToCoordinator(heartbeat);
  session->SendToCoordinator(Event(8));
  session->SendToCoordinator(Event(9));
  const std::vector<v1::AgentMessage> received = coordinator_->AwaitReceived(10, 1);
  session->Stop();
  ASSERT_EQ(received.size(), 3u);
  EXPECT_TRUE(received[0].has_worker_events());
  EXPECT_EQ(Ranks(received[0]), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(received[1].has_heartbeat());
  EXPECT_EQ(Ranks(received[2]), (std::vector<int>{8, 9}));
}

// Without a linger, a lone event goes at once and as it is.
TEST_F(CoordinatorSessionTest, ALoneEventGoesAsItIs) {
  Serve({ScriptedCoordinator::Step::kAcceptAndHold});
  auto session = Connect(absl::ZeroDuration());
  ASSERT_TRUE(recorder_.AwaitConnected(1));
  session->SendToCoordinator(Event(3));
  const std::vector<v1::AgentMessage> received = coordinator_->AwaitReceived(1, 0);
  session->Stop();
  ASSERT_EQ(received.size(), 1u);
  ASSERT_TRUE(received[0].has_worker_event());
  EXPECT_EQ(received[0].worker_event().rank(), 3);
}

v1::AgentMessage Progress(int rank, int calls_done) {
  v1::AgentMessage message = Event(rank);
  message.mutable_worker_event()->set_kind(v1::WORKER_EVENT_KIND_PROGRESS);
  message.mutable_worker_event()->mutable_progress()->set_calls_done(calls_done);
  return message;
}

// Issue 29 item 2: a node's ranks report PROGRESS each at its own phase of
// the worker heartbeat; the writer holds them for the progress linger, so
// they reach the coordinator as one batch with each rank's newest, not one
// message a report.
TEST_F(CoordinatorSessionTest, ProgressReportsOfAPeriodGoAsOneBatchOfTheNewest) {
  Serve({ScriptedCoordinator::Step::kAcceptAndHold});
  // A progress linger far above the microseconds the sends take, even under
  // a sanitizer on a loaded machine: the batch below is exact.
  auto session = std::make_unique<CoordinatorSession>(
      common::MakeChannel(absl::StrCat("127.0.0.1:", server_->port())), recorder_.Callbacks(),
      absl::Milliseconds(5), absl::Milliseconds(20), CoordinatorSession::kDefaultWorkerEventLinger,
      absl::Seconds(3));
  session->Start();
  ASSERT_TRUE(recorder_.AwaitConnected(1));
  for (int rank = 0; rank < 8; ++rank) session->SendToCoordinator(Progress(rank, 1));
  for (int rank = 0; rank < 8; ++rank) session->SendToCoordinator(Progress(rank, 2));
  const std::vector<v1::AgentMessage> received = coordinator_->AwaitReceived(1, 0);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(Ranks(received[0]), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  for (const v1::WorkerEvent& event : received[0].worker_events().events()) {
    EXPECT_EQ(event.progress().calls_done(), 2) << event.rank();
  }
  // Anything else queued ends the wait: a rank's SIZE_DONE goes after the
  // worker event linger (2 ms), not the progress linger, with the
  // PROGRESS queued before it.
  const absl::Time start = absl::Now();
  session->SendToCoordinator(Progress(0, 3));
  session->SendToCoordinator(Event(1));
  const std::vector<v1::AgentMessage> more = coordinator_->AwaitReceived(10, 0);
  const absl::Duration took = absl::Now() - start;
  session->Stop();
  ASSERT_EQ(more.size(), 2u);
  EXPECT_EQ(Ranks(more[1]), (std::vector<int>{0, 1}));
  EXPECT_LT(took, absl::Seconds(3));
}

TEST_F(CoordinatorSessionTest, TheSessionSendsHeartbeatsAtOnceAndEveryPeriodWithWhatItIsGiven) {
  // The scripted coordinator asks for a heartbeat every 250 ms.
  Serve({ScriptedCoordinator::Step::kAcceptAndHold});
  const absl::Time start = absl::Now();
  auto session = Connect(CoordinatorSession::kDefaultWorkerEventLinger, /*heartbeats=*/true);
  const std::vector<v1::AgentMessage> received = coordinator_->AwaitReceived(0, 3);
  const absl::Duration took = absl::Now() - start;
  session->Stop();
  std::vector<int64_t> sequences;
  for (const v1::AgentMessage& message : received) {
    ASSERT_TRUE(message.has_heartbeat());
    EXPECT_EQ(message.heartbeat().running_test_ids_size(), 1);
    EXPECT_EQ(message.heartbeat().running_test_ids(0), "t-7");
    sequences.push_back(message.heartbeat().sequence());
  }
  ASSERT_GE(sequences.size(), 3u);
  EXPECT_EQ(sequences[0], 1);
  EXPECT_EQ(sequences[1], 2);
  EXPECT_EQ(sequences[2], 3);
  // The first at once, then two periods.
  EXPECT_GE(took, absl::Milliseconds(500));
}

}  // namespace
}  // namespace eb::agent
