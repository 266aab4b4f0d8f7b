#include "agent/worker/agent_link.h"

#include "absl/strings/str_cat.h"
#include "common/rpc/channel.h"
#include "common/spec/rendezvous_wait_reply.h"
#include "common/status/grpc_status.h"

namespace eb::worker {
namespace v1 = ebnccl::v1;

namespace {

// The relay adds its own margin; ours sits above it.
constexpr absl::Duration kWaitMargin = absl::Seconds(10);

}  // namespace

AgentLink::AgentLink(std::shared_ptr<grpc::Channel> channel, std::string test_id, int rank,
                     std::string token)
    : stub_(v1::WorkerControl::NewStub(std::move(channel))),
      test_id_(std::move(test_id)),
      rank_(rank),
      token_(std::move(token)) {}

absl::StatusOr<v1::RegisterWorkerReply> AgentLink::Register(absl::Duration timeout) {
  grpc::ClientContext context;
  common::SetTimeout(context, timeout);
  context.set_wait_for_ready(true);
  v1::RegisterWorkerRequest request;
  request.set_test_id(test_id_);
  request.set_rank(rank_);
  request.set_worker_token(token_);
  request.set_pid(static_cast<int>(getpid()));
  v1::RegisterWorkerReply reply;
  absl::Status status = common::FromGrpcStatus(stub_->RegisterWorker(&context, request, &reply));
  if (!status.ok()) return status;
  return reply;
}

absl::StatusOr<bool> AgentLink::Heartbeat(absl::Duration timeout) {
  grpc::ClientContext context;
  common::SetTimeout(context, timeout);
  v1::WorkerHeartbeatRequest request;
  request.set_test_id(test_id_);
  request.set_rank(rank_);
  request.set_worker_token(token_);
  v1::WorkerHeartbeatReply reply;
  absl::Status status = common::FromGrpcStatus(stub_->WorkerHeartbeat(&context, request, &reply));
  if (!status.ok()) return status;
  return reply.stop();
}

absl::Status AgentLink::Report(v1::WorkerEvent event, absl::Duration timeout) {
  grpc::ClientContext context;
  common::SetTimeout(context, timeout);
  v1::ReportWorkerEventRequest request;
  request.set_worker_token(token_);
  event.set_test_id(test_id_);
  event.set_rank(rank_);
  *request.mutable_event() = std::move(event);
  v1::ReportWorkerEventReply reply;
  return common::FromGrpcStatus(stub_->ReportWorkerEvent(&context, request, &reply));
}

absl::Status AgentLink::Set(const std::string& key, const std::string& value) {
  grpc::ClientContext context;
  common::SetTimeout(context, kCallTimeout);
  v1::WorkerRendezvousSetRequest request;
  request.set_worker_token(token_);
  request.mutable_request()->set_test_id(test_id_);
  request.mutable_request()->set_key(key);
  request.mutable_request()->set_value(value);
  v1::RendezvousSetReply reply;
  return common::FromGrpcStatus(stub_->RendezvousSet(&context, request, &reply));
}

absl::StatusOr<std::vector<std::string>> AgentLink::Wait(const std::vector<std::string>& keys,
                                                         absl::Duration timeout) {
  return WaitFor(keys, nullptr, timeout);
}

absl::StatusOr<std::vector<std::string>> AgentLink::WaitSlice(const std::vector<std::string>& keys,
                                                              transport::ValueSlice slice,
                                                              absl::Duration timeout) {
  return WaitFor(keys, &slice, timeout);
}

absl::StatusOr<std::vector<std::string>> AgentLink::WaitFor(const std::vector<std::string>& keys,
                                                            const transport::ValueSlice* slice,
                                                            absl::Duration timeout) {
  grpc::ClientContext context;
  common::SetTimeout(context, timeout + kWaitMargin);
  v1::WorkerRendezvousWaitRequest request;
  request.set_worker_token(token_);
  request.mutable_request()->set_test_id(test_id_);
  for (const std::string& key : keys) request.mutable_request()->add_keys(key);
  request.mutable_request()->set_timeout_ms(absl::ToInt64Milliseconds(timeout));
  if (slice != nullptr) spec::SetWaitSlice(*slice, request.mutable_request());
  v1::RendezvousWaitReply reply;
  absl::Status status = common::FromGrpcStatus(stub_->RendezvousWait(&context, request, &reply));
  if (!status.ok()) return status;
  return spec::WaitReplyValues(reply, keys.size(), slice);
}

}  // namespace eb::worker
