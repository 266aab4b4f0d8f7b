#pragma once

// Composition root of eb-coordinator (like Ray's gcs_server.cc): one
// executor that owns all state, the registry, the rendezvous, the test
// manager, and the gRPC server that adapts them.

#include <memory>

#include "absl/status/statusor.h"
#include "common/exec/event_loop.h"
#include "common/metrics/metrics_http_server.h"
#include "common/metrics/metrics_registry.h"
#include "common/process/process_launcher.h"
#include "common/rpc/server.h"
#include "common/systemd/systemd_notifier.h"
#include "common/systemd/watchdog_pinger.h"
#include "coordinator/config.h"
#include "coordinator/core/collective_tests/collective_test_manager.h"
#include "coordinator/core/collective_tests/rendezvous_kv.h"
#include "coordinator/core/nodes/log_requests.h"
#include "coordinator/core/nodes/node_registry.h"
#include "coordinator/core/validation_manager.h"
#include "coordinator/grpc/agent_service.h"
#include "coordinator/grpc/audit_log.h"
#include "coordinator/grpc/authz.h"
#include "coordinator/grpc/control_service.h"
#include "coordinator/grpc/handshake_audit.h"
#include "coordinator/history/audit_history.h"
#include "coordinator/history/history_store.h"
#include "coordinator/history/validation_history.h"
#include "coordinator/metrics/coordinator_metrics.h"
#include "coordinator/metrics/validation_metrics.h"
#include "coordinator/scheduler_io/command_runner.h"
#include "coordinator/scheduler_io/scheduler_service.h"
#include "coordinator/sentinel/sentinel.h"

namespace eb::coordinator {

class CoordinatorServer {
 public:
  // Opens the test history (config.history_path; "" = in memory) and marks
  // the tests a previous process left running as interrupted, starts
  // serving (gRPC, and /metrics when config.metrics_listen is set), then
  // tells systemd READY=1 and starts the watchdog pings. The history's
  // error (naming the file) when it cannot be opened; UNAVAILABLE when an
  // address cannot be bound.
  static absl::StatusOr<std::unique_ptr<CoordinatorServer>> Start(const CoordinatorConfig& config);
  ~CoordinatorServer();

  // Port actually bound.
  int port() const { return server_->port(); }
  // Port of the /metrics endpoint, or 0 when there is none.
  int metrics_port() const { return metrics_server_ ? metrics_server_->port() : 0; }
  // Stops accepting calls and tears everything down (tests still running
  // are left to their agents, which stop them when the session drops).
  void Shutdown();

 private:
  // The scheduler integration: the backend, the service and its hooks.
  absl::Status StartScheduler();
  // The backend of [scheduler] kind: Slurm's tools, or kubectl.
  absl::StatusOr<std::unique_ptr<scheduler::SchedulerBackend>> MakeBackend();
  // [sentinel] enabled: the probing loop, over the scheduler service.
  void StartSentinel();
  // Hands a finished validation to the scheduler: gives back the nodes it
  // borrowed, and drains or resumes nodes by their verdicts. Event loop only.
  void SchedulerAfterValidation(const ebnccl::v1::ValidationReport& report);

  CoordinatorServer(const CoordinatorConfig& config, std::unique_ptr<TestHistory> history,
                    std::unique_ptr<ValidationHistory> validation_history,
                    std::unique_ptr<AuditHistory> audit_history);

  const CoordinatorConfig config_;
  common::SystemdNotifier notifier_;
  common::MetricsRegistry metrics_registry_;
  common::EventLoop loop_;
  RendezvousKv rendezvous_;
  LogRequests logs_;
  // Outlives tests_, which records into it.
  std::unique_ptr<TestHistory> history_;
  // Outlives validations_, which records into it.
  std::unique_ptr<ValidationHistory> validation_history_;
  std::unique_ptr<TestManager> tests_;
  std::unique_ptr<NodeRegistry> registry_;
  // Destroyed before tests_ and registry_, which it uses.
  std::unique_ptr<ValidationManager> validations_;
  // Outlive the services, which check and record every call through them.
  std::unique_ptr<AuditHistory> audit_history_;
  std::unique_ptr<AuditLog> audit_;
  // Failed TLS handshakes into audit_ (with TLS only); destroyed before it.
  std::unique_ptr<HandshakeAudit> handshake_audit_;
  std::unique_ptr<Authorizer> authz_;
  std::unique_ptr<ControlService> control_service_;
  std::unique_ptr<AgentServiceImpl> agent_service_;
  std::unique_ptr<common::RpcServer> server_;
  std::unique_ptr<CoordinatorMetrics> metrics_;
  std::unique_ptr<ValidationMetrics> validation_metrics_;
  std::unique_ptr<common::MetricsHttpServer> metrics_server_;
  std::unique_ptr<common::WatchdogPinger> watchdog_;
  // [scheduler] kind = "slurm" (issue 30), else all null. The service
  // goes first (its thread uses the others and posts to the loop).
  std::unique_ptr<common::ProcessLauncher> launcher_;
  std::unique_ptr<scheduler_io::CommandRunner> runner_;
  std::unique_ptr<scheduler_io::ActionAudit> scheduler_audit_;
  std::unique_ptr<scheduler_io::SchedulerService> scheduler_;
  // [sentinel] enabled (issue 30, part 3), else null; the sentinel is
  // destroyed on the loop first (Shutdown), then its ports.
  std::unique_ptr<sentinel::ProbeScheduler> probe_scheduler_;
  std::unique_ptr<sentinel::ProbeRunner> probe_runner_;
  std::unique_ptr<sentinel::Sentinel> sentinel_;
  bool shut_down_ = false;
  // A malloc_trim is scheduled (see set_on_finished); event loop only.
  bool trim_pending_ = false;
};

}  // namespace eb::coordinator
