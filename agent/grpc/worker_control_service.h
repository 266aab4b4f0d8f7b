#pragma once

// gRPC glue for WorkerControl (worker -> its agent, over a Unix socket).
// Registration, heartbeats and events are handled by the WorkerSupervisor on
// the agent's executor; rendezvous calls are checked against the worker's
// token and relayed to the coordinator asynchronously (no thread waits on a
// long-poll).

#include <memory>

#include "agent/core/worker_supervisor.h"
#include "common/exec/executor.h"
#include "ebnccl/v1/agent.grpc.pb.h"
#include "ebnccl/v1/worker.grpc.pb.h"
#include "grpcpp/channel.h"

namespace eb::agent {

class WorkerControlService final : public ebnccl::v1::WorkerControl::CallbackService {
 public:
  // `coordinator_channel` carries the relayed rendezvous calls.
  WorkerControlService(common::Executor& executor, WorkerSupervisor& supervisor,
                       std::shared_ptr<grpc::Channel> coordinator_channel);

  grpc::ServerUnaryReactor* RegisterWorker(grpc::CallbackServerContext* context,
                                           const ebnccl::v1::RegisterWorkerRequest* request,
                                           ebnccl::v1::RegisterWorkerReply* reply) override;
  grpc::ServerUnaryReactor* WorkerHeartbeat(grpc::CallbackServerContext* context,
                                            const ebnccl::v1::WorkerHeartbeatRequest* request,
                                            ebnccl::v1::WorkerHeartbeatReply* reply) override;
  grpc::ServerUnaryReactor* ReportWorkerEvent(grpc::CallbackServerContext* context,
                                              const ebnccl::v1::ReportWorkerEventRequest* request,
                                              ebnccl::v1::ReportWorkerEventReply* reply) override;
  grpc::ServerUnaryReactor* RendezvousSet(grpc::CallbackServerContext* context,
                                          const ebnccl::v1::WorkerRendezvousSetRequest* request,
                                          ebnccl::v1::RendezvousSetReply* reply) override;
  grpc::ServerUnaryReactor* RendezvousWait(grpc::CallbackServerContext* context,
                                           const ebnccl::v1::WorkerRendezvousWaitRequest* request,
                                           ebnccl::v1::RendezvousWaitReply* reply) override;

 private:
  common::Executor& executor_;
  WorkerSupervisor& supervisor_;
  std::unique_ptr<ebnccl::v1::AgentService::Stub> coordinator_;
};

}  // namespace eb::agent
