#pragma once

// gRPC glue for WorkerControl (worker -> its agent, over a Unix socket).
// Registration, heartbeats and events are handled by the WorkerSupervisor on
// the agent's executor; rendezvous calls are checked against the worker's
// token and relayed to the coordinator asynchronously (no thread waits on a
// long-poll); identical waits of several workers share one relayed call
// (agent/core/coalesced_waits.h).

#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "agent/core/coalesced_waits.h"
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

  // Cancels every call relayed to the coordinator and refuses (UNAVAILABLE)
  // the ones not started yet, so that a server shutting down does not wait
  // for a long-poll's timeout. Any thread; for good.
  void CancelRelays();

 private:
  // Registers a relayed call's context; false once CancelRelays ran.
  bool TrackRelay(grpc::ClientContext* context);
  void UntrackRelay(grpc::ClientContext* context);

  // One worker's RendezvousWait, answered when the shared call ends.
  struct PendingWait {
    grpc::ServerUnaryReactor* reactor;
    ebnccl::v1::RendezvousWaitReply* reply;
  };
  // Starts the relayed call `call` of `waits_` for `request` (executor
  // thread).
  void StartSharedWait(uint64_t call, const ebnccl::v1::RendezvousWaitRequest& request);

  common::Executor& executor_;
  WorkerSupervisor& supervisor_;
  std::unique_ptr<ebnccl::v1::AgentService::Stub> coordinator_;
  CoalescedWaits<PendingWait> waits_;  // executor thread only
  absl::Mutex relays_mu_;
  absl::flat_hash_set<grpc::ClientContext*> relays_ ABSL_GUARDED_BY(relays_mu_);
  bool relays_cancelled_ ABSL_GUARDED_BY(relays_mu_) = false;
};

}  // namespace eb::agent
