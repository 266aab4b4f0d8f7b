#include "agent/grpc/coordinator_session.h"

#include <algorithm>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "agent/core/launch_check.h"
#include "common/rpc/backoff.h"
#include "common/spec/limits.h"
#include "common/status/grpc_status.h"
#include "grpc/support/time.h"
#include "spdlog/spdlog.h"

namespace eb::agent {
namespace v1 = ebnccl::v1;

namespace {

template <typename Op>
void* TagOf(Op op) {
  return reinterpret_cast<void*>(static_cast<intptr_t>(op));
}

gpr_timespec GprDeadline(absl::Time deadline) {
  if (deadline == absl::InfiniteFuture()) return gpr_inf_future(GPR_CLOCK_REALTIME);
  const timespec at = absl::ToTimespec(deadline);
  gpr_timespec result;
  result.tv_sec = at.tv_sec;
  result.tv_nsec = static_cast<int32_t>(at.tv_nsec);
  result.clock_type = GPR_CLOCK_REALTIME;
  return result;
}

}  // namespace

CoordinatorSession::CoordinatorSession(std::shared_ptr<grpc::Channel> channel, Callbacks callbacks,
                                       absl::Duration reconnect_initial,
                                       absl::Duration reconnect_max,
                                       absl::Duration worker_event_linger,
                                       absl::Duration progress_linger)
    : stub_(v1::AgentService::NewStub(std::move(channel))),
      callbacks_(std::move(callbacks)),
      reconnect_initial_(reconnect_initial),
      reconnect_max_(reconnect_max),
      worker_event_linger_(worker_event_linger),
      progress_linger_(progress_linger) {}

CoordinatorSession::~CoordinatorSession() { Stop(); }

void CoordinatorSession::Start() {
  thread_ = std::thread([this] { RunLoop(); });
}

void CoordinatorSession::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
    if (context_ != nullptr) context_->TryCancel();
  }
  if (thread_.joinable()) thread_.join();
}

bool CoordinatorSession::connected() const {
  absl::MutexLock lock(&mu_);
  return connected_;
}

void CoordinatorSession::SendToCoordinator(const v1::AgentMessage& message) {
  uint64_t generation = 0;
  {
    absl::MutexLock lock(&mu_);
    if (!connected_) {
      spdlog::debug("not connected to the coordinator; dropped a message");
      return;
    }
    Queue(message);
    if (wake_pending_) return;
    wake_pending_ = true;
    generation = generation_;
  }
  // Set outside mu_: the alarm's event wakes the session thread at once, and
  // its first step is to take mu_.
  absl::MutexLock lock(&wake_mu_);
  if (wake_ != nullptr && wake_generation_ == generation) {
    // A deadline in the past: the alarm's event is queued at once. (gRPC
    // rounds a deadline up to the next millisecond: "now" would arm a
    // timer, and wake gRPC's timer threads to fire it.)
    wake_->Set(wake_queue_, gpr_inf_past(GPR_CLOCK_MONOTONIC), TagOf(Op::kWake));
  }
}

bool CoordinatorSession::OutboxFull() const {
  absl::MutexLock lock(&mu_);
  return outbox_full_;
}

void CoordinatorSession::CancelCall() {
  absl::MutexLock lock(&mu_);
  if (context_ != nullptr) context_->TryCancel();
}

void CoordinatorSession::Queue(v1::AgentMessage message) {
  if (!outbox_.Push(std::move(message))) outbox_full_ = true;
}

void CoordinatorSession::RunLoop() {
  absl::BitGen bitgen;
  common::Backoff backoff({reconnect_initial_, reconnect_max_, 2.0, 0.2},
                          [&bitgen] { return absl::Uniform<double>(bitgen, 0.0, 1.0); });
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
    }
    bool was_connected = false;
    const absl::Status status = RunOnce(&was_connected);
    {
      absl::MutexLock lock(&mu_);
      connected_ = false;
      outbox_.Clear();
      outbox_full_ = false;
      if (stopping_) return;
    }
    if (was_connected) {
      backoff.Reset();
      if (callbacks_.on_disconnected) callbacks_.on_disconnected(status);
    }
    const absl::Duration delay = backoff.Next();
    if (status.code() == absl::StatusCode::kAlreadyExists) {
      // Another live agent holds this node name (a duplicate --node-name, or
      // this agent's previous session not yet timed out). Keep trying, so
      // that the name is taken over once the other session is gone, but say
      // loudly what is wrong.
      spdlog::error(
          "the coordinator refused the registration: {}; every agent needs its own "
          "--node-name (agent.node_name); retrying in {}",
          std::string(status.message()), absl::FormatDuration(delay));
    } else {
      spdlog::warn("coordinator session ended ({}); reconnecting in {}", status.ToString(),
                   absl::FormatDuration(delay));
    }
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(&stopping_), delay);
  }
}

absl::Status CoordinatorSession::RunOnce(bool* registered) {
  // Destroyed in reverse: the alarm before the queue it posts to, the queue
  // (shut down and drained in EndCall) before the call's context.
  grpc::ClientContext context;
  grpc::CompletionQueue cq;
  grpc::Alarm wake;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return absl::CancelledError("stopping");
    context_ = &context;
  }
  std::unique_ptr<Stream> stream = stub_->PrepareAsyncSession(&context, &cq);
  const Registration registration = Register(*stream, cq);
  if (!registration.refusal.ok()) context.TryCancel();
  if (registration.heartbeat_period.has_value()) {
    *registered = true;
    RelayRegistered(*stream, cq, wake, *registration.heartbeat_period);
  }
  absl::Status result = EndCall(*stream, cq, wake, registration.refusal);
  absl::MutexLock lock(&mu_);
  context_ = nullptr;
  return result;
}

CoordinatorSession::Registration CoordinatorSession::Register(Stream& stream,
                                                              grpc::CompletionQueue& cq) {
  stream.StartCall(TagOf(Op::kStart));
  v1::AgentMessage hello;
  *hello.mutable_register_() = callbacks_.make_registration();
  v1::CoordinatorMessage reply;
  // One op at a time until registered; a failed op means the call is over,
  // and Finish says why (the coordinator's refusal, or the dial's error).
  const bool replied = AwaitOp(cq, Op::kStart) &&
                       (stream.Write(hello, TagOf(Op::kWrite)), AwaitOp(cq, Op::kWrite)) &&
                       (stream.Read(&reply, TagOf(Op::kRead)), AwaitOp(cq, Op::kRead));
  Registration registration;
  if (!replied) return registration;
  if (!reply.has_register_reply()) {
    registration.refusal = absl::UnavailableError(
        "the coordinator's first message was not a register_reply; ending the session");
    return registration;
  }
  // A period of 0 made the agent spin (SECURITY_FINDINGS case 5): end the
  // session, naming the field; the reconnect backoff paces the retries.
  absl::StatusOr<absl::Duration> period = CheckRegisterReply(reply.register_reply());
  if (period.ok()) {
    registration.heartbeat_period = *period;
  } else {
    registration.refusal = period.status();
  }
  return registration;
}

void CoordinatorSession::RelayRegistered(Stream& stream, grpc::CompletionQueue& cq,
                                         grpc::Alarm& wake, absl::Duration heartbeat_period) {
  {
    absl::MutexLock lock(&mu_);
    connected_ = true;
    wake_pending_ = false;
    ++generation_;
    absl::MutexLock wake_lock(&wake_mu_);
    wake_ = &wake;
    wake_queue_ = &cq;
    wake_generation_ = generation_;
  }
  spdlog::info("registered with the coordinator (heartbeat every {})",
               absl::FormatDuration(heartbeat_period));
  if (callbacks_.on_connected) callbacks_.on_connected(heartbeat_period);
  Relay(stream, cq, heartbeat_period);
  {
    absl::MutexLock lock(&mu_);
    connected_ = false;
  }
  absl::MutexLock wake_lock(&wake_mu_);
  wake_ = nullptr;
  wake_queue_ = nullptr;
}

absl::Status CoordinatorSession::EndCall(Stream& stream, grpc::CompletionQueue& cq,
                                         grpc::Alarm& wake, const absl::Status& refusal) {
  // Not cancelling a call the coordinator ended keeps its own status (why it
  // ended the session) for the log, rather than CANCELLED; Stop() cancels
  // through context_ when it is the agent that ends the session.
  grpc::Status finished;
  stream.Finish(&finished, TagOf(Op::kFinish));
  (void)AwaitOp(cq, Op::kFinish);
  absl::Status result = refusal;
  if (result.ok()) {
    result = common::FromGrpcStatus(finished);
    if (result.ok()) result = absl::UnavailableError("the coordinator ended the session");
  }
  wake.Cancel();
  cq.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (cq.Next(&tag, &ok)) {
  }
  return result;
}

void CoordinatorSession::Relay(Stream& stream, grpc::CompletionQueue& cq,
                               absl::Duration heartbeat_period) {
  write_in_flight_ = false;
  linger_since_ = absl::InfiniteFuture();
  bool read_in_flight = true;
  bool ended = false;
  int64_t heartbeat_sequence = 0;
  absl::Time next_heartbeat = callbacks_.fill_heartbeat ? absl::Now() : absl::InfiniteFuture();
  stream.Read(&reading_, TagOf(Op::kRead));
  // A failed read or write means the call is over (ended by the coordinator,
  // broken, or cancelled by Stop), so the other op in flight fails too and
  // the loop ends with nothing pending.
  while (read_in_flight || write_in_flight_) {
    const absl::Time now = absl::Now();
    absl::Time deadline = absl::InfiniteFuture();
    if (!ended && OutboxFull()) {
      // The coordinator has left spec::kMaxQueuedSessionMessages unread
      // while its connection stays up: it is not reading. End the session;
      // the agent reconnects, and a live coordinator sees the node again.
      spdlog::warn(
          "the coordinator has not read the last {} messages of this session; ending it and "
          "reconnecting",
          spec::kMaxQueuedSessionMessages);
      CancelCall();
      ended = true;
    }
    if (!ended) {
      if (now >= next_heartbeat) {
        QueueHeartbeat(++heartbeat_sequence);
        next_heartbeat = now + heartbeat_period;
      }
      deadline = next_heartbeat;
      MaybeStartWrite(stream, now, &deadline);
    }
    void* tag = nullptr;
    bool ok = false;
    const grpc::CompletionQueue::NextStatus next = cq.AsyncNext(&tag, &ok, GprDeadline(deadline));
    if (next == grpc::CompletionQueue::SHUTDOWN) return;
    if (next == grpc::CompletionQueue::TIMEOUT) continue;  // a heartbeat or an event is due
    switch (static_cast<Op>(reinterpret_cast<intptr_t>(tag))) {
      case Op::kRead:
        if (ok && !ended) {
          if (callbacks_.on_command) callbacks_.on_command(reading_);
          stream.Read(&reading_, TagOf(Op::kRead));
        } else {
          read_in_flight = false;
          ended = true;
        }
        break;
      case Op::kWrite:
        write_in_flight_ = false;
        if (!ok) ended = true;
        break;
      case Op::kWake: {
        absl::MutexLock lock(&mu_);
        wake_pending_ = false;
        break;
      }
      default:
        break;
    }
  }
}

void CoordinatorSession::QueueHeartbeat(int64_t sequence) {
  v1::AgentMessage message;
  v1::AgentHeartbeat& heartbeat = *message.mutable_heartbeat();
  callbacks_.fill_heartbeat(&heartbeat);
  heartbeat.set_sequence(sequence);
  absl::MutexLock lock(&mu_);
  Queue(std::move(message));
}

void CoordinatorSession::MaybeStartWrite(Stream& stream, absl::Time now, absl::Time* deadline) {
  if (write_in_flight_) return;
  {
    absl::MutexLock lock(&mu_);
    if (outbox_.empty()) return;
    if (outbox_.FrontIsWorkerEvent()) {
      // The node's other ranks are usually a moment behind: let their
      // events of the same phase join this one (event_batching.h). Their
      // PROGRESS reports come at phases of their own within each worker
      // heartbeat: while nothing else is queued, wait for the period's
      // (one batch a node and period, not one message a rank and period;
      // the outbox keeps each rank's newest). Anything else queued ends
      // that wait.
      if (linger_since_ == absl::InfiniteFuture()) linger_since_ = now;
      const absl::Duration linger = outbox_.OnlyProgress()
                                        ? std::max(progress_linger_, worker_event_linger_)
                                        : worker_event_linger_;
      const absl::Time due = linger_since_ + linger;
      if (now < due) {
        *deadline = std::min(*deadline, due);
        return;
      }
    }
    linger_since_ = absl::InfiniteFuture();
    writing_ = outbox_.Take();
  }
  write_in_flight_ = true;
  stream.Write(writing_, TagOf(Op::kWrite));
}

bool CoordinatorSession::AwaitOp(grpc::CompletionQueue& cq, Op op) {
  void* tag = nullptr;
  bool ok = false;
  while (cq.Next(&tag, &ok)) {
    if (static_cast<Op>(reinterpret_cast<intptr_t>(tag)) == op) return ok;
  }
  return false;
}

}  // namespace eb::agent
