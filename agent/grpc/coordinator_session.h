#pragma once

// The agent's long-lived session with the coordinator: dial out, register,
// receive commands, send events and heartbeats; when the stream breaks,
// reconnect with exponential backoff and register again (ARCHITECTURE.md:
// only the coordinator listens).
//
// One thread drives the stream through gRPC's asynchronous API and a
// completion queue of its own: a read is always pending, writes go one at a
// time from a queue, SendToCoordinator wakes the thread with an alarm, and
// the heartbeats are timed by the thread's wait on the queue.
// Callers never block: Send only queues. One thread, not a reader and a
// writer on the synchronous API: there, every write from the writer thread
// kicked the reader (the call's poller) awake and handed the completion
// back, five wake-ups per heartbeat on an idle agent where this takes two
// or three (docs/BENCHMARKS.md, issue 15).

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "agent/core/session_outbox.h"
#include "agent/core/worker_supervisor.h"
#include "common/spec/limits.h"
#include "ebnccl/v1/agent.grpc.pb.h"
#include "grpcpp/alarm.h"
#include "grpcpp/channel.h"
#include "grpcpp/completion_queue.h"

namespace eb::agent {

class CoordinatorSession final : public CoordinatorSink {
 public:
  // Long enough for a node's ranks finishing the same phase to queue their
  // events together, short beside anything a test measures or waits for.
  static constexpr absl::Duration kDefaultWorkerEventLinger = absl::Milliseconds(2);
  // The shipped worker heartbeat period (agent_core_config.h): each rank
  // reports PROGRESS at most once per period, at its own phase.
  static constexpr absl::Duration kDefaultProgressLinger = absl::Milliseconds(250);

  struct Callbacks {
    // Builds the registration message (called before every connection, so
    // the inventory is fresh).
    std::function<ebnccl::v1::RegisterAgent()> make_registration;
    // Registered; the coordinator asks for heartbeats every `period`.
    std::function<void(absl::Duration period)> on_connected;
    // Fills what a heartbeat carries besides its sequence number (the
    // running tests), on the session thread. The session sends a heartbeat
    // at once on registering and then every period, from its own thread, so
    // that an idle agent's heartbeat wakes one thread. Unset: no heartbeats.
    std::function<void(ebnccl::v1::AgentHeartbeat* heartbeat)> fill_heartbeat;
    // A command from the coordinator (launch, stop).
    std::function<void(const ebnccl::v1::CoordinatorMessage&)> on_command;
    // The session ended (`status` says why); a reconnect follows.
    std::function<void(const absl::Status& status)> on_disconnected;
  };

  // `worker_event_linger`: how long the writer holds a worker event so that
  // the other ranks' events of the same moment join it in one batch
  // (event_batching.h); zero sends whatever is queued at once.
  // `progress_linger`: how long it holds PROGRESS events while nothing
  // else is queued, so that a node's ranks' reports of one worker
  // heartbeat period go as one batch (issue 29 item 2: at 8 ranks a node,
  // ~3x less coordinator CPU than a message a report, docs/BENCHMARKS.md
  // round 13); the worker heartbeat period. Each report waits at most
  // that long.
  CoordinatorSession(std::shared_ptr<grpc::Channel> channel, Callbacks callbacks,
                     absl::Duration reconnect_initial, absl::Duration reconnect_max,
                     absl::Duration worker_event_linger = kDefaultWorkerEventLinger,
                     absl::Duration progress_linger = kDefaultProgressLinger);
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
  using Stream =
      grpc::ClientAsyncReaderWriter<ebnccl::v1::AgentMessage, ebnccl::v1::CoordinatorMessage>;
  // What each completion-queue event is.
  enum class Op : intptr_t { kStart = 1, kRead, kWrite, kWake, kFinish };

  // How the registration exchange of one call went: the heartbeat period
  // the coordinator asks for once it accepted the agent; otherwise
  // `refusal` says why the agent ends the call (a reply it cannot use), or
  // is OK when the call itself failed (then Finish says why).
  struct Registration {
    std::optional<absl::Duration> heartbeat_period;
    absl::Status refusal;
  };

  void RunLoop();
  // One session: registers, then relays until the stream ends. *registered
  // says whether the coordinator accepted the registration (so that the
  // caller reports a lost session, not a failed dial).
  absl::Status RunOnce(bool* registered);
  // Starts the call, sends the registration and reads the first reply, one
  // op at a time.
  Registration Register(Stream& stream, grpc::CompletionQueue& cq);
  // Registered: publishes the connection (SendToCoordinator may queue and
  // wake `wake` from now), relays until the stream ends, then withdraws it.
  void RelayRegistered(Stream& stream, grpc::CompletionQueue& cq, grpc::Alarm& wake,
                       absl::Duration heartbeat_period);
  // Finishes the call, then shuts the queue down and drains it. Returns why
  // the session ended: `refusal` when the agent refused the registration,
  // else the call's status (UNAVAILABLE when the coordinator ended it
  // cleanly).
  absl::Status EndCall(Stream& stream, grpc::CompletionQueue& cq, grpc::Alarm& wake,
                       const absl::Status& refusal);
  // Relays commands in, and heartbeats every `heartbeat_period` and the
  // outbox out, until the stream ends (a read or a write fails: the call is
  // over, or Stop cancelled it).
  void Relay(Stream& stream, grpc::CompletionQueue& cq, absl::Duration heartbeat_period);
  // Queues heartbeat number `sequence`.
  void QueueHeartbeat(int64_t sequence);
  bool OutboxFull() const;
  // Cancels the call in flight (its read and write then fail).
  void CancelCall();
  // Queues `message`; when the outbox is full (the coordinator is not
  // reading), marks the session to end instead.
  void Queue(ebnccl::v1::AgentMessage message) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Starts the next write when none is in flight and the outbox has one
  // ready; *deadline is lowered to when a lingering worker event is due.
  void MaybeStartWrite(Stream& stream, absl::Time now, absl::Time* deadline);
  // Waits for the event `op` (one op of that kind in flight), dropping wake
  // alarms; false when the op failed or the queue shut down.
  static bool AwaitOp(grpc::CompletionQueue& cq, Op op);

  std::unique_ptr<ebnccl::v1::AgentService::Stub> stub_;
  Callbacks callbacks_;
  const absl::Duration reconnect_initial_;
  const absl::Duration reconnect_max_;
  const absl::Duration worker_event_linger_;
  const absl::Duration progress_linger_;
  std::thread thread_;

  // Session-thread state of the relay.
  ebnccl::v1::AgentMessage writing_;        // the write in flight
  ebnccl::v1::CoordinatorMessage reading_;  // the read in flight
  bool write_in_flight_ = false;
  // Since when the worker event at the front has waited.
  absl::Time linger_since_ = absl::InfiniteFuture();

  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool connected_ ABSL_GUARDED_BY(mu_) = false;
  // Bounded (agent/core/session_outbox.h): heartbeats coalesce, log pages
  // and messages are capped.
  SessionOutbox outbox_ ABSL_GUARDED_BY(mu_){spec::kMaxQueuedSessionMessages};
  // The outbox was full: the relay ends the session (and the agent
  // reconnects).
  bool outbox_full_ ABSL_GUARDED_BY(mu_) = false;
  grpc::ClientContext* context_ ABSL_GUARDED_BY(mu_) = nullptr;
  // At most one wake alarm pending; generation_ counts the connections, so
  // that a wake decided in one is not set on the next one's alarm.
  bool wake_pending_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;

  // The alarm SendToCoordinator wakes the session thread with, set while
  // relaying. A mutex of its own (taken after mu_ when both are), so that
  // the thread setting it does not hold mu_, which the woken session thread
  // takes first.
  absl::Mutex wake_mu_ ABSL_ACQUIRED_AFTER(mu_);
  grpc::Alarm* wake_ ABSL_GUARDED_BY(wake_mu_) = nullptr;
  grpc::CompletionQueue* wake_queue_ ABSL_GUARDED_BY(wake_mu_) = nullptr;
  uint64_t wake_generation_ ABSL_GUARDED_BY(wake_mu_) = 0;
};

}  // namespace eb::agent
