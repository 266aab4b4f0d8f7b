#pragma once

// gRPC glue for the Control service (ebctl -> coordinator). Each handler
// posts its work onto the coordinator's executor and finishes the reactor
// from there (STYLE.md rule 7); no handler blocks a gRPC thread.

#include "common/exec/executor.h"
#include "coordinator/config.h"
#include "coordinator/core/collective_tests/collective_test_manager.h"
#include "coordinator/core/nodes/log_requests.h"
#include "coordinator/core/nodes/node_registry.h"
#include "coordinator/core/validation_manager.h"
#include "coordinator/grpc/audit_log.h"
#include "coordinator/grpc/authz.h"
#include "coordinator/scheduler_io/scheduler_service.h"
#include "ebnccl/v1/control.grpc.pb.h"

namespace eb::coordinator {

// The scheduler's view of one node (`node`, as its last read) in the
// listing; `prefix` marks ebnccl's drains (control_service_scheduler.cc).
void FillSchedulerState(const scheduler::SchedulerNode& node, const std::string& prefix,
                        ebnccl::v1::NodeStatus& status);

class ControlService final : public ebnccl::v1::Control::CallbackService {
 public:
  // All references must outlive the service; they are used on `executor`.
  // Each call is checked by `authz` first; mutating calls are recorded in
  // `audit`. `insecure`: plaintext on a non-loopback address (ListNodes
  // says so).
  ControlService(common::Executor& executor, TestManager& tests, NodeRegistry& registry,
                 LogRequests& logs, ValidationManager& validations, const Authorizer& authz,
                 AuditLog& audit, bool insecure = false);

  // With a scheduler ([scheduler] kind = "slurm"), every validation first
  // asks it which nodes hold a job (or an operator drained) and leaves
  // them out (issue 30). `scheduler` must outlive the service.
  void set_scheduler(scheduler_io::SchedulerService* scheduler) { scheduler_ = scheduler; }
  // The fabric read from `topology.file` at start (issue 31); null: none.
  void set_topology(const TopologyConfig& topology) { topology_ = topology; }

  grpc::ServerUnaryReactor* ListNodes(grpc::CallbackServerContext* context,
                                      const ebnccl::v1::ListNodesRequest* request,
                                      ebnccl::v1::ListNodesReply* reply) override;
  grpc::ServerWriteReactor<ebnccl::v1::RunTestEvent>* RunTest(
      grpc::CallbackServerContext* context, const ebnccl::v1::RunTestRequest* request) override;
  grpc::ServerUnaryReactor* CancelTest(grpc::CallbackServerContext* context,
                                       const ebnccl::v1::CancelTestRequest* request,
                                       ebnccl::v1::CancelTestReply* reply) override;
  grpc::ServerUnaryReactor* GetTest(grpc::CallbackServerContext* context,
                                    const ebnccl::v1::GetTestRequest* request,
                                    ebnccl::v1::GetTestReply* reply) override;
  grpc::ServerUnaryReactor* ListTests(grpc::CallbackServerContext* context,
                                      const ebnccl::v1::ListTestsRequest* request,
                                      ebnccl::v1::ListTestsReply* reply) override;
  grpc::ServerUnaryReactor* GetLog(grpc::CallbackServerContext* context,
                                   const ebnccl::v1::GetLogRequest* request,
                                   ebnccl::v1::GetLogReply* reply) override;

  grpc::ServerWriteReactor<ebnccl::v1::ValidationEvent>* RunValidation(
      grpc::CallbackServerContext* context,
      const ebnccl::v1::RunValidationRequest* request) override;
  grpc::ServerWriteReactor<ebnccl::v1::ValidationEvent>* WatchValidation(
      grpc::CallbackServerContext* context,
      const ebnccl::v1::WatchValidationRequest* request) override;
  grpc::ServerUnaryReactor* GetValidation(grpc::CallbackServerContext* context,
                                          const ebnccl::v1::GetValidationRequest* request,
                                          ebnccl::v1::GetValidationReply* reply) override;
  grpc::ServerUnaryReactor* ListValidations(grpc::CallbackServerContext* context,
                                            const ebnccl::v1::ListValidationsRequest* request,
                                            ebnccl::v1::ListValidationsReply* reply) override;
  grpc::ServerUnaryReactor* CancelValidation(grpc::CallbackServerContext* context,
                                             const ebnccl::v1::CancelValidationRequest* request,
                                             ebnccl::v1::CancelValidationReply* reply) override;
  grpc::ServerUnaryReactor* ListAudit(grpc::CallbackServerContext* context,
                                      const ebnccl::v1::ListAuditRequest* request,
                                      ebnccl::v1::ListAuditReply* reply) override;
  grpc::ServerUnaryReactor* GetTopology(grpc::CallbackServerContext* context,
                                        const ebnccl::v1::GetTopologyRequest* request,
                                        ebnccl::v1::GetTopologyReply* reply) override;

 private:
  common::Executor& executor_;
  TestManager& tests_;
  NodeRegistry& registry_;
  LogRequests& logs_;
  // Starts `spec` (on the executor), leaving out `leave_out`, and audits it.
  absl::Status StartValidation(const ebnccl::v1::ValidationSpec& spec, const Caller& caller,
                               std::shared_ptr<ValidationObserver> observer,
                               const std::map<std::string, std::string>& leave_out,
                               std::string* id_out = nullptr);
  // With a scheduler: borrows the nodes of `spec` not left out through a
  // scheduler job, then starts the validation on exactly the allocated
  // nodes; `fail` ends the stream with the error when it cannot.
  void BorrowAndStart(ebnccl::v1::ValidationSpec spec, const Caller& caller,
                      const std::shared_ptr<ValidationObserver>& observer,
                      const std::map<std::string, std::string>& leave_out,
                      const std::function<void(const absl::Status&)>& fail);

  ValidationManager& validations_;
  // The scheduler that owns the fleet, or null (kind "none").
  scheduler_io::SchedulerService* scheduler_ = nullptr;
  TopologyConfig topology_;
  const Authorizer& authz_;
  AuditLog& audit_;
  const bool insecure_;
};

}  // namespace eb::coordinator
