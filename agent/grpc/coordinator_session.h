#pragma once

// The agent's long-lived session with the coordinator: dial out, register,
// receive commands, send events and heartbeats; when the stream breaks,
// reconnect with exponential backoff and register again (ARCHITECTURE.md:
// only the coordinator listens).
//
// Uses gRPC's synchronous streaming API on two dedicated threads per
// connection (one reads, one writes from a queue), because a blocking
// Read/Write loop is the simplest correct shape for one long-lived stream;
// callers never block: Send only queues.

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "agent/core/worker_supervisor.h"
#include "ebnccl/v1/agent.grpc.pb.h"
#include "grpcpp/channel.h"

namespace eb::agent {

class CoordinatorSession final : public CoordinatorSink {
 public:
  // Long enough for a node's ranks finishing the same phase to queue their
  // events together, short beside anything a test measures or waits for.
  static constexpr absl::Duration kDefaultWorkerEventLinger = absl::Milliseconds(2);

  struct Callbacks {
    // Builds the registration message (called before every connection, so
    // the inventory is fresh).
    std::function<ebnccl::v1::RegisterAgent()> make_registration;
    // Registered; the coordinator asks for heartbeats every `period`.
    std::function<void(absl::Duration period)> on_connected;
    // A command from the coordinator (launch, stop).
    std::function<void(const ebnccl::v1::CoordinatorMessage&)> on_command;
    // The session ended (`status` says why); a reconnect follows.
    std::function<void(const absl::Status& status)> on_disconnected;
  };

  // `worker_event_linger`: how long the writer holds a worker event so that
  // the other ranks' events of the same moment join it in one batch
  // (event_batching.h); zero sends whatever is queued at once.
  CoordinatorSession(std::shared_ptr<grpc::Channel> channel, Callbacks callbacks,
                     absl::Duration reconnect_initial, absl::Duration reconnect_max,
                     absl::Duration worker_event_linger = kDefaultWorkerEventLinger);
  ~CoordinatorSession() override;

  // Starts the connect loop on its own thread.
  void Start();
  // Ends the session and joins the threads. Idempotent.
  void Stop();

  // Queues a message for the coordinator; dropped while disconnected.
  // Thread-safe, never blocks.
  void SendToCoordinator(const ebnccl::v1::AgentMessage& message) override;

  bool connected() const;

 private:
  void RunLoop();
  // One connection: register, then read until the stream ends.
  // One session: registers, then relays until the stream ends. *registered
  // says whether the coordinator accepted the registration (so that the
  // caller reports a lost session, not a failed dial).
  absl::Status RunOnce(bool* registered);
  void WriterLoop(
      grpc::ClientReaderWriter<ebnccl::v1::AgentMessage, ebnccl::v1::CoordinatorMessage>* stream);

  std::unique_ptr<ebnccl::v1::AgentService::Stub> stub_;
  Callbacks callbacks_;
  const absl::Duration reconnect_initial_;
  const absl::Duration reconnect_max_;
  const absl::Duration worker_event_linger_;
  std::thread thread_;

  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool connected_ ABSL_GUARDED_BY(mu_) = false;
  bool writer_done_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<ebnccl::v1::AgentMessage> outbox_ ABSL_GUARDED_BY(mu_);
  grpc::ClientContext* context_ ABSL_GUARDED_BY(mu_) = nullptr;
};

}  // namespace eb::agent
