#pragma once

// Composition root of eb-agent: one executor owning the supervisor's state,
// the process launcher (the only reaper), the coordinator session, and the
// WorkerControl endpoint on a Unix socket for this node's workers (open while
// it has workers, and a linger after).

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "agent/config.h"
#include "agent/core/nvml.h"
#include "agent/core/worker_supervisor.h"
#include "agent/grpc/coordinator_session.h"
#include "agent/grpc/worker_endpoint.h"
#include "agent/host/nccl_ras_client.h"
#include "agent/metrics/agent_metrics.h"
#include "common/exec/event_loop.h"
#include "common/metrics/metrics_http_server.h"
#include "common/metrics/metrics_registry.h"
#include "common/process/process_launcher.h"
#include "common/systemd/systemd_notifier.h"
#include "common/systemd/watchdog_pinger.h"

namespace eb::agent {

// What calls in flight get when the endpoint closes.
inline constexpr absl::Duration kWorkerEndpointGrace = absl::Seconds(1);

class AgentServer {
 public:
  // Starts serving workers (and /metrics when config.metrics_listen is set)
  // and dialling the coordinator; systemd gets READY=1 once the agent is
  // registered. UNAVAILABLE when the socket or the metrics address cannot be
  // bound; INTERNAL when the reaper cannot start.
  static absl::StatusOr<std::unique_ptr<AgentServer>> Start(const AgentConfig& config,
                                                            std::vector<std::string> agent_env);
  ~AgentServer();

  // Stops every test's workers (waiting up to the grace period plus a
  // margin for them to be reaped), ends the session, stops serving.
  void Shutdown();

  // Port of the /metrics endpoint, or 0 when there is none.
  int metrics_port() const { return metrics_server_ ? metrics_server_->port() : 0; }

 private:
  explicit AgentServer(const AgentConfig& config);

  // The steps of Start, in order; each makes the members named.
  // launcher_ (the only reaper), metered_launcher_ and gpu_details_ (NVML
  // in a child with `agent_env`). INTERNAL when the reaper cannot start.
  absl::Status CreateLauncher(const std::vector<std::string>& agent_env);
  // session_ (not started yet) and metered_sink_: the coordinator session
  // and its callbacks onto the loop.
  void CreateSession();
  // ras_client_ and supervisor_, with the supervisor's view of the host
  // (tokens, directories, ports, logs, RAS, the worker endpoint).
  void CreateSupervisor(std::vector<std::string> agent_env);
  // endpoint_, after removing a previous agent's stale sockets, opened once
  // so that a socket that cannot be served fails the start (UNAVAILABLE);
  // it closes after the idle linger like any other.
  absl::Status OpenWorkerEndpoint();
  // metrics_server_ when config.metrics_listen is set; UNAVAILABLE when it
  // cannot be bound.
  absl::Status StartMetricsServer();
  // watchdog_ pinging systemd, then the session dials the coordinator.
  void StartWatchdogAndSession();

  // The registration the session sends on each connection: the node's GPUs
  // with their HCA affinity and the inventory. Session thread.
  ebnccl::v1::RegisterAgent MakeRegistration();
  // The session ended: systemd's status says so, and every test's workers
  // stop. Session thread.
  void OnDisconnected(const absl::Status& status);
  void OnConnected();
  // The node has no test: the worker endpoint closes after the linger
  // (config.worker_socket_linger) unless a test comes first. Executor.
  void StartIdleLinger();
  void EndIdleLinger();
  // Once the endpoint has closed: the heap's free pages and the clean file
  // pages that starting or the tests touched go back to the kernel
  // (common/memory/idle_pages.h). Executor.
  void ReturnIdleMemory();
  void OnCommand(const ebnccl::v1::CoordinatorMessage& command);
  // The GPUs this agent owns, with NVML's details (memory); logs why they
  // are missing the first time (and when that changes). Any thread.
  std::vector<ebnccl::v1::GpuInfo> CurrentGpus();

  const AgentConfig config_;
  common::SystemdNotifier notifier_;
  common::MetricsRegistry metrics_registry_;
  AgentMetrics metrics_{metrics_registry_};
  common::EventLoop loop_;
  std::unique_ptr<common::ProcessLauncher> launcher_;
  // Count spawns and reported failures on their way (metrics).
  std::unique_ptr<MeteredProcessLauncher> metered_launcher_;
  // NVML's GPU details, asked of a child process through launcher_.
  std::unique_ptr<GpuDetailsSource> gpu_details_;
  std::unique_ptr<CoordinatorSession> session_;
  std::unique_ptr<MeteredCoordinatorSink> metered_sink_;
  // Before supervisor_: destroyed after it, joining the queries in flight
  // (their replies are posted onto loop_, which outlives both).
  std::unique_ptr<NcclRasClient> ras_client_;
  std::unique_ptr<WorkerSupervisor> supervisor_;
  // After supervisor_: destroyed before it.
  std::unique_ptr<WorkerEndpoint> endpoint_;
  absl::Time idle_since_;  // executor state: when the last test ended
  std::unique_ptr<common::MetricsHttpServer> metrics_server_;
  std::unique_ptr<common::WatchdogPinger> watchdog_;
  // The supervisor's running tests, for the heartbeats the session thread
  // sends (running_tests_changed keeps it).
  absl::Mutex running_tests_mu_;
  std::vector<std::string> running_tests_ ABSL_GUARDED_BY(running_tests_mu_);
  bool shut_down_ = false;         // executor state
  bool shutdown_started_ = false;  // caller's thread
  absl::Mutex nvml_note_mu_;
  std::string logged_nvml_note_ ABSL_GUARDED_BY(nvml_note_mu_);
};

}  // namespace eb::agent
