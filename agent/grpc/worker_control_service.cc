#include "agent/grpc/worker_control_service.h"

#include <memory>
#include <string>

#include "absl/time/clock.h"
#include "agent/core/rendezvous_wait_key.h"
#include "common/rpc/channel.h"
#include "common/status/grpc_status.h"

namespace eb::agent {
namespace v1 = ebnccl::v1;

namespace {

// A relayed call in flight: the client context and messages gRPC uses until
// the coordinator answers. Owned by the call's completion callback: gRPC
// copies that callback (a std::function, so its captures must be copyable)
// and drops every copy once it has run it, the last one freeing the call, on
// gRPC's thread after the callback returned, or on ours if gRPC was faster
// than our return from the async call. A call that never starts is freed
// where it was made.
template <typename Request, typename Reply>
struct RelayedCall {
  grpc::ClientContext context;
  Request request;
  Reply reply;
};

// Extra time the relay allows beyond the worker's own timeout, so that the
// coordinator's DEADLINE_EXCEEDED (naming the missing keys) arrives first.
constexpr absl::Duration kRelayMargin = absl::Seconds(5);

}  // namespace

WorkerControlService::WorkerControlService(common::Executor& executor, WorkerSupervisor& supervisor,
                                           std::shared_ptr<grpc::Channel> coordinator_channel)
    : executor_(executor),
      supervisor_(supervisor),
      coordinator_(v1::AgentService::NewStub(std::move(coordinator_channel))) {}

grpc::ServerUnaryReactor* WorkerControlService::RegisterWorker(
    grpc::CallbackServerContext* context, const v1::RegisterWorkerRequest* request,
    v1::RegisterWorkerReply* reply) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  executor_.Post([this, reactor, request, reply] {
    auto result = supervisor_.RegisterWorker(*request);
    grpc::Status status = common::ToGrpcStatus(result.status());
    if (result.ok()) *reply = *std::move(result);
    reactor->Finish(status);
  });
  return reactor;
}

grpc::ServerUnaryReactor* WorkerControlService::WorkerHeartbeat(
    grpc::CallbackServerContext* context, const v1::WorkerHeartbeatRequest* request,
    v1::WorkerHeartbeatReply* reply) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  executor_.Post([this, reactor, request, reply] {
    auto stop = supervisor_.Heartbeat(*request);
    if (stop.ok()) reply->set_stop(*stop);
    reactor->Finish(common::ToGrpcStatus(stop.status()));
  });
  return reactor;
}

grpc::ServerUnaryReactor* WorkerControlService::ReportWorkerEvent(
    grpc::CallbackServerContext* context, const v1::ReportWorkerEventRequest* request,
    v1::ReportWorkerEventReply* /*reply*/) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  executor_.Post([this, reactor, request] {
    reactor->Finish(common::ToGrpcStatus(supervisor_.ReportEvent(*request)));
  });
  return reactor;
}

namespace {

// The answer to a worker calling while the endpoint closes.
grpc::Status EndpointClosing() {
  return {grpc::StatusCode::UNAVAILABLE,
          "the agent's worker endpoint is closing (no test is running on this node)"};
}

}  // namespace

bool WorkerControlService::TrackRelay(grpc::ClientContext* context) {
  absl::MutexLock lock(&relays_mu_);
  if (relays_cancelled_) return false;
  relays_.insert(context);
  return true;
}

void WorkerControlService::UntrackRelay(grpc::ClientContext* context) {
  absl::MutexLock lock(&relays_mu_);
  relays_.erase(context);
}

void WorkerControlService::CancelRelays() {
  absl::MutexLock lock(&relays_mu_);
  relays_cancelled_ = true;
  // Under the lock: a context is untracked (and may be freed) only under it.
  for (grpc::ClientContext* context : relays_) context->TryCancel();
}

grpc::ServerUnaryReactor* WorkerControlService::RendezvousSet(
    grpc::CallbackServerContext* context, const v1::WorkerRendezvousSetRequest* request,
    v1::RendezvousSetReply* reply) {
  // Checks the worker's token, then forwards the inner request to the
  // coordinator and finishes the worker's call with the coordinator's
  // answer.
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  executor_.Post([this, reactor, request, reply] {
    absl::Status allowed =
        supervisor_.CheckToken(request->worker_token(), request->request().test_id());
    if (!allowed.ok()) {
      reactor->Finish(common::ToGrpcStatus(allowed));
      return;
    }
    auto call = std::make_shared<RelayedCall<v1::RendezvousSetRequest, v1::RendezvousSetReply>>();
    call->request = request->request();
    common::SetTimeout(call->context, absl::Seconds(30));
    if (!TrackRelay(&call->context)) {
      reactor->Finish(EndpointClosing());
      return;
    }
    coordinator_->async()->RendezvousSet(&call->context, &call->request, &call->reply,
                                         [this, call, reactor, reply](const grpc::Status& status) {
                                           UntrackRelay(&call->context);
                                           *reply = std::move(call->reply);
                                           reactor->Finish(status);
                                         });
  });
  return reactor;
}

grpc::ServerUnaryReactor* WorkerControlService::RendezvousWait(
    grpc::CallbackServerContext* context, const v1::WorkerRendezvousWaitRequest* request,
    v1::RendezvousWaitReply* reply) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  executor_.Post([this, reactor, request, reply] {
    absl::Status allowed =
        supervisor_.CheckToken(request->worker_token(), request->request().test_id());
    if (!allowed.ok()) {
      reactor->Finish(common::ToGrpcStatus(allowed));
      return;
    }
    // Waits that ask for the same keys and slice of the same test share a
    // call, whatever timeout each worker computed (agent/core/
    // rendezvous_wait_key.h); their deadlines decide the join.
    const std::string key = RendezvousWaitKey(request->request());
    const absl::Time deadline = absl::Now() + absl::Milliseconds(request->request().timeout_ms());
    const auto joined = waits_.Join(key, deadline, PendingWait{reactor, reply});
    if (joined.start) StartSharedWait(joined.call, request->request());
  });
  return reactor;
}

void WorkerControlService::StartSharedWait(uint64_t id, const v1::RendezvousWaitRequest& request) {
  auto call = std::make_shared<RelayedCall<v1::RendezvousWaitRequest, v1::RendezvousWaitReply>>();
  call->request = request;
  common::SetTimeout(call->context, absl::Milliseconds(request.timeout_ms()) + kRelayMargin);
  if (!TrackRelay(&call->context)) {
    for (const PendingWait& waiter : waits_.Finish(id)) waiter.reactor->Finish(EndpointClosing());
    return;
  }
  coordinator_->async()->RendezvousWait(
      &call->context, &call->request, &call->reply, [this, call, id](const grpc::Status& status) {
        UntrackRelay(&call->context);
        // The reply goes to every waiter as it came: its form is part of
        // the request, which all of them share (common/spec/
        // rendezvous_wait_reply.h).
        auto answer = std::make_shared<const v1::RendezvousWaitReply>(std::move(call->reply));
        // gRPC's thread: answer the waiters on the executor, which owns
        // waits_.
        executor_.Post([this, id, status, answer] {
          for (const PendingWait& waiter : waits_.Finish(id)) {
            *waiter.reply = *answer;
            waiter.reactor->Finish(status);
          }
        });
      });
}

}  // namespace eb::agent
