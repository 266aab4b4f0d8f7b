#include "agent/grpc/worker_control_service.h"

#include "common/rpc/channel.h"
#include "common/status/grpc_status.h"

namespace eb::agent {
namespace v1 = ebnccl::v1;

namespace {

// A relayed call in flight: owns the client context and messages until the
// coordinator answers.
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
    if (result.ok()) *reply = *std::move(result);
    reactor->Finish(common::ToGrpcStatus(result.status()));
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

grpc::ServerUnaryReactor* WorkerControlService::RendezvousSet(
    grpc::CallbackServerContext* context, const v1::WorkerRendezvousSetRequest* request,
    v1::RendezvousSetReply* reply) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  executor_.Post([this, reactor, request, reply] {
    absl::Status allowed =
        supervisor_.CheckToken(request->worker_token(), request->request().test_id());
    if (!allowed.ok()) {
      reactor->Finish(common::ToGrpcStatus(allowed));
      return;
    }
    auto* call = new RelayedCall<v1::RendezvousSetRequest, v1::RendezvousSetReply>();
    call->request = request->request();
    common::SetTimeout(call->context, absl::Seconds(30));
    coordinator_->async()->RendezvousSet(&call->context, &call->request, &call->reply,
                                         [call, reactor, reply](grpc::Status status) {
                                           *reply = call->reply;
                                           delete call;
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
    auto* call = new RelayedCall<v1::RendezvousWaitRequest, v1::RendezvousWaitReply>();
    call->request = request->request();
    common::SetTimeout(call->context,
                       absl::Milliseconds(call->request.timeout_ms()) + kRelayMargin);
    coordinator_->async()->RendezvousWait(&call->context, &call->request, &call->reply,
                                          [call, reactor, reply](grpc::Status status) {
                                            *reply = std::move(call->reply);
                                            delete call;
                                            reactor->Finish(status);
                                          });
  });
  return reactor;
}

}  // namespace eb::agent
