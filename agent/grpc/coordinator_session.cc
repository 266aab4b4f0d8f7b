#include "agent/grpc/coordinator_session.h"

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "agent/core/event_batching.h"
#include "agent/core/launch_check.h"
#include "common/rpc/backoff.h"
#include "common/status/grpc_status.h"
#include "spdlog/spdlog.h"

namespace eb::agent {
namespace v1 = ebnccl::v1;

CoordinatorSession::CoordinatorSession(std::shared_ptr<grpc::Channel> channel, Callbacks callbacks,
                                       absl::Duration reconnect_initial,
                                       absl::Duration reconnect_max,
                                       absl::Duration worker_event_linger)
    : stub_(v1::AgentService::NewStub(std::move(channel))),
      callbacks_(std::move(callbacks)),
      reconnect_initial_(reconnect_initial),
      reconnect_max_(reconnect_max),
      worker_event_linger_(worker_event_linger) {}

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
  absl::MutexLock lock(&mu_);
  if (!connected_) {
    spdlog::debug("not connected to the coordinator; dropped a message");
    return;
  }
  outbox_.push_back(message);
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
      outbox_.clear();
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
  grpc::ClientContext context;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return absl::CancelledError("stopping");
    context_ = &context;
  }
  auto stream = stub_->Session(&context);
  absl::Status result;
  v1::AgentMessage hello;
  *hello.mutable_register_() = callbacks_.make_registration();
  v1::CoordinatorMessage reply;
  if (!stream->Write(hello) || !stream->Read(&reply) || !reply.has_register_reply()) {
    stream->WritesDone();
    result = common::FromGrpcStatus(stream->Finish());
    if (result.ok()) result = absl::UnavailableError("the coordinator closed the session");
  } else if (absl::StatusOr<absl::Duration> checked = CheckRegisterReply(reply.register_reply());
             !checked.ok()) {
    // A period of 0 made the agent spin (SECURITY_FINDINGS case 5): end the
    // session, naming the field; the reconnect backoff paces the retries.
    result = checked.status();
    context.TryCancel();
    (void)stream->Finish();
  } else {
    const absl::Duration period = *checked;
    {
      absl::MutexLock lock(&mu_);
      connected_ = true;
      writer_done_ = false;
    }
    *registered = true;
    spdlog::info("registered with the coordinator (heartbeat every {})",
                 absl::FormatDuration(period));
    if (callbacks_.on_connected) callbacks_.on_connected(period);
    std::thread writer([this, raw = stream.get()] { WriterLoop(raw); });
    v1::CoordinatorMessage command;
    while (stream->Read(&command)) {
      if (callbacks_.on_command) callbacks_.on_command(command);
    }
    {
      absl::MutexLock lock(&mu_);
      connected_ = false;
    }
    // Reads ended: the call is over. connected_ = false wakes the writer,
    // and a Write on a finished call fails at once, so the join is short.
    // Not cancelling the call keeps the coordinator's own status (why it
    // ended the session) for the log, rather than CANCELLED; Stop()
    // cancels through context_ when it is the agent that ends the session.
    writer.join();
    result = common::FromGrpcStatus(stream->Finish());
    if (result.ok()) result = absl::UnavailableError("the coordinator ended the session");
  }
  absl::MutexLock lock(&mu_);
  context_ = nullptr;
  return result;
}

void CoordinatorSession::WriterLoop(
    grpc::ClientReaderWriter<v1::AgentMessage, v1::CoordinatorMessage>* stream) {
  while (true) {
    v1::AgentMessage message;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](CoordinatorSession* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
            return !self->outbox_.empty() || !self->connected_ || self->stopping_;
          },
          this));
      if (outbox_.empty()) return;
      if (worker_event_linger_ > absl::ZeroDuration() && outbox_.front().has_worker_event()) {
        // The node's other ranks are usually a moment behind: let their
        // events of the same phase join this one (event_batching.h).
        mu_.AwaitWithTimeout(absl::Condition(
                                 +[](CoordinatorSession* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(
                                      self->mu_) { return !self->connected_ || self->stopping_; },
                                 this),
                             worker_event_linger_);
        if (outbox_.empty()) return;
      }
      message = TakeNextMessage(outbox_);
    }
    if (!stream->Write(message)) return;
  }
}

}  // namespace eb::agent
