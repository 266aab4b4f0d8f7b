#include "coordinator/grpc/agent_service.h"

#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/rpc/reactor_order.h"
#include "common/rpc/stream_outbox.h"
#include "common/spec/bounded_text.h"
#include "common/spec/limits.h"
#include "common/spec/rendezvous_wait_reply.h"
#include "common/status/grpc_status.h"
#include "coordinator/core/nodes/session_messages.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

namespace {

using SessionBase = grpc::ServerBidiReactor<v1::AgentMessage, v1::CoordinatorMessage>;

class SessionReactor;
using SessionOutbox = common::StreamOutbox<SessionReactor, v1::CoordinatorMessage>;

// The AgentChannel the core holds: sends through the session's outbox.
class SessionChannel final : public AgentChannel {
 public:
  SessionChannel(std::shared_ptr<SessionOutbox> outbox, std::string peer)
      : outbox_(std::move(outbox)), peer_(std::move(peer)) {}
  void Send(const v1::CoordinatorMessage& message) override { outbox_->Push(message); }
  void Close(const absl::Status& status) override { outbox_->Finish(common::ToGrpcStatus(status)); }
  std::string Peer() const override { return peer_; }

 private:
  std::shared_ptr<SessionOutbox> outbox_;
  std::string peer_;
};

// One agent's session: reads are posted to the executor in order; writes
// go through the outbox.
class SessionReactor final : public SessionBase {
 public:
  SessionReactor(AgentServiceImpl& service, uint64_t session_id, Caller caller)
      : service_(service),
        session_id_(session_id),
        outbox_(std::make_shared<SessionOutbox>(this)),
        channel_(std::make_shared<SessionChannel>(outbox_, caller.peer)),
        caller_(std::make_shared<const Caller>(std::move(caller))),
        budget_(service.budget(), service.clock().Now()) {
    order_.Constructed();
    AgentServiceImpl& service_ref = service_;
    service_.executor().Post(
        [&service_ref, id = session_id_, channel = channel_, caller = caller_]() mutable {
          service_ref.AwaitRegister(id, std::move(channel), std::move(caller));
        });
    StartRead(&incoming_);
  }

  void OnReadDone(bool ok) override {
    auto reaction = order_.ReadDone();
    AgentServiceImpl& service = service_;
    if (!ok) {
      // The agent closed its side, the connection broke, or a message could
      // not be parsed (gRPC ends the read the same way).
      service_.executor().Post([&service, id = session_id_, channel = channel_, caller = caller_] {
        service.HandleClosed(id, channel, *caller);
      });
      outbox_->Finish(grpc::Status::OK);
      return;
    }
    // Charged here, on gRPC's thread, before anything is posted: a flood
    // over the budget never reaches the event loop, and once over, nothing
    // more is read (what the node still sends stays in its socket buffers,
    // not in the coordinator's memory).
    const size_t bytes = incoming_.ByteSizeLong();
    absl::Status charged =
        budget_.Charge(SessionMessageItems(incoming_), bytes, service_.clock().Now());
    if (!charged.ok()) {
      service_.executor().Post(
          [&service, id = session_id_, charged = std::move(charged), channel = channel_,
           caller = caller_] { service.CutOff(id, charged, channel, *caller); });
      return;
    }
    // Free text from a node (failure messages, evidence, log errors, ids)
    // is bounded before it reaches memory, the log or the history, here on
    // gRPC's thread: a 15 MiB failure text was kept whole in the report and
    // written whole into the coordinator's log. Bytes fields (log pages) are
    // not text and stay whole; a small message cannot hold a long field.
    // A register is checked whole by NodeRegistry (its name refused with its
    // real size, its inventory bounded to 256 KiB in all).
    if (bytes > spec::kMaxStoredTextBytes && !incoming_.has_register_()) {
      spec::BoundMessageText(incoming_);
    }
    if (incoming_.has_heartbeat()) {
      // Handled with the other sessions' heartbeats, a little later.
      service_.AddHeartbeat(session_id_, {incoming_, channel_, caller_});
    } else {
      service_.executor().Post(
          [&service, id = session_id_, message = incoming_, channel = channel_, caller = caller_] {
            service.HandleMessage(id, message, channel, *caller);
          });
    }
    order_.BeforeStartRead();
    StartRead(&incoming_);
  }

  void OnWriteDone(bool ok) override {
    auto reaction = order_.OtherReaction();
    outbox_->OnWriteDone(ok);
  }

  void OnDone() override {
    order_.Done();
    outbox_->Detach();
    delete this;
  }

 private:
  AgentServiceImpl& service_;
  const uint64_t session_id_;
  std::shared_ptr<SessionOutbox> outbox_;
  std::shared_ptr<AgentChannel> channel_;
  std::shared_ptr<const Caller> caller_;
  SessionBudget budget_;  // on the reactor's reads, which gRPC serializes
  v1::AgentMessage incoming_;
  common::ReactorOrder order_;
};

}  // namespace

AgentServiceImpl::AgentServiceImpl(common::Executor& executor, common::Clock& clock,
                                   NodeRegistry& registry, TestManager& tests,
                                   RendezvousKv& rendezvous, LogRequests& logs,
                                   const CoordinatorConfig& config, const Authorizer& authz,
                                   AuditLog& audit, SessionBudgetLimits budget)
    : executor_(executor),
      clock_(clock),
      registry_(registry),
      tests_(tests),
      rendezvous_(rendezvous),
      logs_(logs),
      config_(config),
      authz_(authz),
      audit_(audit),
      budget_(budget),
      rendezvous_budget_(config.rendezvous_budget),
      heartbeats_(executor, config.heartbeat_period / 20,
                  [this](const std::vector<std::pair<uint64_t, PendingHeartbeat>>& batch) {
                    for (const auto& [session_id, heartbeat] : batch) {
                      HandleMessage(session_id, heartbeat.message, heartbeat.channel,
                                    *heartbeat.caller);
                    }
                  }) {}

void AgentServiceImpl::AddHeartbeat(uint64_t session_id, PendingHeartbeat heartbeat) {
  heartbeats_.Add(session_id, std::move(heartbeat));
}

SessionBase* AgentServiceImpl::Session(grpc::CallbackServerContext* context) {
  Caller caller;
  if (auto refused = authz_.Check(*context, Role::kAgent, "Session", "", &caller)) {
    return RefuseBidi<v1::AgentMessage, v1::CoordinatorMessage>(*refused);
  }
  if (absl::Status admitted = unregistered_sessions_.Admit(PeerHostOf(caller.peer));
      !admitted.ok()) {
    return RefuseBidi<v1::AgentMessage, v1::CoordinatorMessage>(admitted);
  }
  return new SessionReactor(*this, next_session_id_++, std::move(caller));
}

void AgentServiceImpl::AwaitRegister(uint64_t session_id, std::shared_ptr<AgentChannel> channel,
                                     std::shared_ptr<const Caller> caller) {
  const absl::Duration deadline = config_.heartbeat_period * config_.heartbeat_miss_limit;
  const std::string caller_peer = caller->peer;
  const common::TimerId timer = executor_.PostAfter(
      deadline,
      [this, session_id, channel = std::move(channel), caller = std::move(caller), deadline] {
        auto it = register_deadlines_.find(session_id);
        if (it == register_deadlines_.end()) return;
        const std::string host = it->second.host;
        unregistered_sessions_.Release(host);
        register_deadlines_.erase(it);
        const absl::Status late = absl::DeadlineExceededError(
            absl::StrCat("no register message within ", absl::FormatDuration(deadline),
                         " (the heartbeat period times the miss limit) of opening the session"));
        // Audited and logged at most once a minute per peer host, with the
        // count left out: a peer that keeps thousands of sessions open
        // without registering wrote a row and a line for each.
        if (std::optional<uint64_t> left_out = silent_ends_.Admit(host, clock_.Now())) {
          const absl::Status audited = WithLeftOut(
              late, *left_out, absl::StrCat("more from ", host, " since the last record"));
          audit_.Record(*caller, "Session", "peer=" + channel->Peer(), audited);
          spdlog::warn("ending an agent session from {}: {}", channel->Peer(), audited.ToString());
        }
        channel->Close(late);
      });
  register_deadlines_[session_id] = {timer, PeerHostOf(caller_peer)};
}

void AgentServiceImpl::StopAwaitingRegister(uint64_t session_id) {
  auto it = register_deadlines_.find(session_id);
  if (it == register_deadlines_.end()) return;
  executor_.Cancel(it->second.timer);
  unregistered_sessions_.Release(it->second.host);
  register_deadlines_.erase(it);
}

namespace {

// With TLS, an agent registers only a node name its certificate carries:
// a stolen or forged name gets nothing (SECURITY_FINDINGS case 8).
absl::Status CheckNodeName(bool tls, const Caller& caller, const std::string& node_name) {
  if (!tls) return absl::OkStatus();
  for (const std::string& name : caller.dns_names) {
    if (name == node_name) return absl::OkStatus();
  }
  return absl::PermissionDeniedError(
      absl::StrCat("node_name: '", Abbreviate(node_name),
                   "' differs from the node name of the agent's certificate '",
                   absl::StrJoin(caller.dns_names, "', '"), "' (", caller.identity, ")"));
}

}  // namespace

void AgentServiceImpl::HandleMessage(uint64_t session_id, const v1::AgentMessage& message,
                                     const std::shared_ptr<AgentChannel>& channel,
                                     const Caller& caller) {
  if (message.has_register_()) {
    absl::Status status = CheckNodeName(authz_.tls(), caller, message.register_().node_name());
    if (status.ok())
      status = cut_offs_.CheckRegister(message.register_().node_name(), clock_.Now());
    if (status.ok()) status = registry_.Register(session_id, message.register_(), channel);
    audit_.Record(caller, "Register", "node_name=" + message.register_().node_name(), status);
    if (!status.ok()) {
      spdlog::warn("refused agent registration from {}: {}", channel->Peer(), status.ToString());
      channel->Close(status);
      // Audited above: its end is not a second, unexplained refusal.
      StopAwaitingRegister(session_id);
      return;
    }
    StopAwaitingRegister(session_id);
    v1::CoordinatorMessage reply;
    reply.mutable_register_reply()->set_heartbeat_period_ms(
        absl::ToInt64Milliseconds(config_.heartbeat_period));
    channel->Send(reply);
    return;
  }
  NodeRecord* node = registry_.FindBySession(session_id);
  if (node == nullptr) {
    channel->Close(
        absl::FailedPreconditionError("the first message of a session must be register"));
    return;
  }
  const std::string node_name = node->name;
  absl::Status handled =
      HandleSessionMessage({registry_, tests_, logs_, &refused_messages_log_, clock_.Now()},
                           session_id, node_name, message);
  if (!handled.ok()) {
    spdlog::warn("node={}: ending its session: {}", node_name, handled.ToString());
    channel->Close(handled);
  }
}

void AgentServiceImpl::HandleClosed(uint64_t session_id,
                                    const std::shared_ptr<AgentChannel>& channel,
                                    const Caller& caller) {
  if (register_deadlines_.contains(session_id)) {
    // An agent registers first, always: a session that ends before it is a
    // probe, or a register gRPC could not parse (a node name that is not
    // valid UTF-8 never reaches our code). Audited at most once a minute
    // per peer host, with the count left out (issue 32, item 10).
    const std::string host = PeerHostOf(channel->Peer());
    if (std::optional<uint64_t> left_out = unregistered_ends_.Admit(host, clock_.Now())) {
      audit_.Record(
          caller, "Session", "peer=" + channel->Peer(),
          WithLeftOut(absl::InvalidArgumentError(
                          "the session ended before a valid register message (a message "
                          "that is not valid protobuf, such as a string that is not "
                          "UTF-8, ends it so)"),
                      *left_out, absl::StrCat("more from ", host, " since the last record")));
    }
  }
  StopAwaitingRegister(session_id);
  registry_.SessionClosed(session_id);
}

void AgentServiceImpl::CutOff(uint64_t session_id, const absl::Status& exceeded,
                              const std::shared_ptr<AgentChannel>& channel, const Caller& caller) {
  const NodeRecord* node = registry_.FindBySession(session_id);
  const std::string node_name = node != nullptr ? node->name : "";
  audit_.Record(caller, "Session",
                absl::StrCat("node_name=", node_name.empty() ? "(not registered)" : node_name,
                             " peer=", channel->Peer()),
                exceeded);
  spdlog::warn("node={} peer={}: cut off: {}", node_name, channel->Peer(), exceeded.ToString());
  if (!node_name.empty()) cut_offs_.Record(node_name, clock_.Now());
  // Closed first: the first status given to a session is the one its agent
  // sees, and losing the node closes it too (UNAVAILABLE).
  channel->Close(exceeded);
  StopAwaitingRegister(session_id);
  registry_.SessionClosed(session_id, absl::StrCat("its agent was cut off: ", exceeded.message()));
}

absl::Status AgentServiceImpl::ChargeRendezvous(const Caller& caller, const char* method) {
  const std::string charged_to = RendezvousCaller(authz_.tls(), caller.identity, caller.peer);
  absl::Status charged;
  bool report = false;
  {
    absl::MutexLock lock(&rendezvous_mu_);
    charged = rendezvous_budget_.Charge(charged_to, clock_.Now());
    if (!charged.ok()) report = rendezvous_refusals_.Count(charged_to);
  }
  if (report) {
    executor_.Post([this, caller, charged, method] {
      audit_.Record(caller, method, "", charged);
      CutOffNodeOf(caller, charged);
    });
  }
  return charged;
}

void AgentServiceImpl::CutOffNodeOf(const Caller& caller, const absl::Status& exceeded) {
  for (const std::string& name : caller.dns_names) {
    const NodeRecord* node = registry_.Find(name);
    if (node == nullptr || node->state == v1::NODE_STATE_LOST || node->channel == nullptr) continue;
    // Copied: losing the node resets its channel.
    const std::shared_ptr<AgentChannel> channel = node->channel;
    CutOff(node->session_id, exceeded, channel, caller);
  }
}

grpc::ServerUnaryReactor* AgentServiceImpl::RendezvousSet(grpc::CallbackServerContext* context,
                                                          const v1::RendezvousSetRequest* request,
                                                          v1::RendezvousSetReply* /*reply*/) {
  Caller caller;
  if (auto refused = authz_.Check(*context, Role::kAgent, "RendezvousSet", "", &caller)) {
    return RefuseUnary(context, *refused);
  }
  if (absl::Status charged = ChargeRendezvous(caller, "RendezvousSet"); !charged.ok()) {
    return RefuseUnary(context, charged);
  }
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  executor_.Post([this, reactor, request, caller = std::move(caller)] {
    absl::StatusOr<std::string> node = RendezvousNodeOf(caller, request->test_id());
    if (!node.ok()) {
      AuditRefusal(caller, "RendezvousSet", request->test_id(), node.status());
      reactor->Finish(common::ToGrpcStatus(node.status()));
      return;
    }
    const absl::Status set =
        rendezvous_.Set(request->test_id(), request->key(), request->value(), *node);
    if (set.code() == absl::StatusCode::kPermissionDenied) {
      AuditRefusal(caller, "RendezvousSet", request->test_id(), set);  // another node's key
    } else if (!set.ok()) {
      CutOffOverQuota(caller, "RendezvousSet", request->test_id(), *node, set);
    }
    reactor->Finish(common::ToGrpcStatus(set));
  });
  return reactor;
}

absl::StatusOr<std::string> AgentServiceImpl::RendezvousNodeOf(const Caller& caller,
                                                               const std::string& test_id) const {
  if (!authz_.tls()) return std::string();
  if (const TestRun* run = tests_.FindRunning(test_id)) {
    // Its nodes are the spec's node_names: a set, not a copy of the report
    // (thousands of rendezvous calls per large test).
    for (const std::string& name : caller.dns_names) {
      if (run->HasNode(name)) return name;
    }
    return absl::PermissionDeniedError(absl::StrCat("rendezvous of test '", Abbreviate(test_id),
                                                    "' is for the agents of its nodes; ",
                                                    caller.identity, " is not one of them"));
  }
  absl::StatusOr<v1::TestReport> report = tests_.GetTest(test_id);
  if (report.ok()) {
    for (const std::string& node : report->spec().node_names()) {
      for (const std::string& name : caller.dns_names) {
        if (name == node) return name;
      }
    }
  }
  // The same answer for an unknown test: nothing is learnt about ids.
  return absl::PermissionDeniedError(absl::StrCat("rendezvous of test '", Abbreviate(test_id),
                                                  "' is for the agents of its nodes; ",
                                                  caller.identity, " is not one of them"));
}

void AgentServiceImpl::CutOffOverQuota(const Caller& caller, const char* method,
                                       const std::string& test_id, const std::string& node,
                                       const absl::Status& refused) {
  if (node.empty() || !rendezvous_.NodeOverQuota(test_id, node)) return;
  AuditRefusal(caller, method, test_id, refused);
  CutOffNodeOf(caller, refused);
}

void AgentServiceImpl::AuditRefusal(const Caller& caller, const char* method,
                                    const std::string& test_id, const absl::Status& refused) {
  if (!refusals_.Count(absl::StrCat(caller.identity, " ", method))) return;
  audit_.Record(caller, method, absl::StrCat("test_id=", Abbreviate(test_id)), refused);
}

grpc::ServerUnaryReactor* AgentServiceImpl::RendezvousWait(grpc::CallbackServerContext* context,
                                                           const v1::RendezvousWaitRequest* request,
                                                           v1::RendezvousWaitReply* reply) {
  Caller caller;
  if (auto refused = authz_.Check(*context, Role::kAgent, "RendezvousWait", "", &caller)) {
    return RefuseUnary(context, *refused);
  }
  if (absl::Status charged = ChargeRendezvous(caller, "RendezvousWait"); !charged.ok()) {
    return RefuseUnary(context, charged);
  }
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  executor_.Post([this, reactor, request, reply, caller = std::move(caller)] {
    absl::StatusOr<std::string> node = RendezvousNodeOf(caller, request->test_id());
    if (!node.ok()) {
      AuditRefusal(caller, "RendezvousWait", request->test_id(), node.status());
      reactor->Finish(common::ToGrpcStatus(node.status()));
      return;
    }
    std::vector<std::string> keys(request->keys().begin(), request->keys().end());
    std::optional<RendezvousKv::Slice> slice;
    const bool concatenated = spec::WantsConcatenatedReply(*request);
    if (request->has_slice()) {
      slice =
          RendezvousKv::Slice{request->slice().offset(), request->slice().length(), concatenated};
    }
    rendezvous_.Wait(
        request->test_id(), std::move(keys), absl::Milliseconds(request->timeout_ms()),
        [this, reactor, reply, concatenated, caller, test_id = request->test_id(),
         node = *node](absl::StatusOr<std::vector<std::string>> values) {
          const absl::Status status = values.status();
          if (values.ok()) spec::SetWaitReplyValues(*std::move(values), concatenated, reply);
          reactor->Finish(common::ToGrpcStatus(status));
          if (status.code() == absl::StatusCode::kResourceExhausted) {
            // Later: the store is still inside Wait.
            executor_.Post([this, caller, test_id, node, status] {
              CutOffOverQuota(caller, "RendezvousWait", test_id, node, status);
            });
          }
        },
        slice, *node);
  });
  return reactor;
}

}  // namespace eb::coordinator
