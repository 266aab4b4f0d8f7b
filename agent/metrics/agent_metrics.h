#pragma once

// The agent's metrics (names, types and labels in docs/METRICS.md):
//
//   ebnccl_agent_worker_spawns_total                 counter
//   ebnccl_agent_worker_failures_total{kind}         counter
//   ebnccl_agent_connected                           gauge (0/1)
//   ebnccl_agent_tests_running                       gauge
//   ebnccl_agent_workers_running                     gauge
//
// The counters are collected without touching WorkerSupervisor: the agent
// hands the supervisor a MeteredProcessLauncher (counts successful spawns)
// and a MeteredCoordinatorSink (counts the worker failures the supervisor
// reports to the coordinator, by failure kind) wrapped around the real
// launcher and session. The gauges are refreshed by Update() on the agent's
// executor, typically at scrape time through RefreshOnExecutor.

#include <string>

#include "agent/core/worker_supervisor.h"
#include "common/metrics/metrics_registry.h"
#include "common/process/process_launcher.h"
#include "ebnccl/v1/agent.pb.h"

namespace eb::agent {

class AgentMetrics {
 public:
  // Declares the families in `registry` (which must outlive this object).
  explicit AgentMetrics(common::MetricsRegistry& registry);

  AgentMetrics(const AgentMetrics&) = delete;
  AgentMetrics& operator=(const AgentMetrics&) = delete;

  // A worker process was spawned. Thread-safe.
  void OnWorkerSpawned();
  // A worker failure was reported to the coordinator. Thread-safe.
  void OnWorkerFailure(ebnccl::v1::FailureKind kind);
  // Refreshes the gauges. `connected`: registered with the coordinator
  // (CoordinatorSession::connected()). Reads the supervisor, so runs on the
  // agent's executor.
  void Update(const WorkerSupervisor& supervisor, bool connected);

 private:
  common::Counter& spawns_;
  common::Counter& failures_;
  common::Gauge& connected_;
  common::Gauge& tests_running_;
  common::Gauge& workers_running_;
};

// "worker_exited", "worker_hung", "launch_failed", ...: the FailureKind
// without its prefix, lower case; "unspecified" for values without a name.
std::string FailureKindLabel(ebnccl::v1::FailureKind kind);

// A ProcessLauncher that counts successful spawns and forwards everything
// to `inner`. Spawn failures are not counted here: the supervisor reports
// them as LAUNCH_FAILED, which MeteredCoordinatorSink counts. Thread-safe
// like `inner`; `inner` and `metrics` must outlive it.
class MeteredProcessLauncher final : public common::ProcessLauncher {
 public:
  MeteredProcessLauncher(common::ProcessLauncher& inner, AgentMetrics& metrics)
      : inner_(inner), metrics_(metrics) {}

  absl::StatusOr<common::ChildHandle> Spawn(const common::ProcessSpec& spec,
                                            common::ExitCallback on_exit) override;
  absl::Status SignalGroup(const common::ChildHandle& child, int signal) override;

 private:
  common::ProcessLauncher& inner_;
  AgentMetrics& metrics_;
};

// A CoordinatorSink that counts the worker failures passing through it
// (WorkerEvent FAILED or EXITED with a failure) and forwards every message
// to `inner`. The supervisor does not report exits it caused itself (a
// stop), so only real failures are counted. Thread-safe like `inner`;
// `inner` and `metrics` must outlive it.
class MeteredCoordinatorSink final : public CoordinatorSink {
 public:
  MeteredCoordinatorSink(CoordinatorSink& inner, AgentMetrics& metrics)
      : inner_(inner), metrics_(metrics) {}

  void SendToCoordinator(const ebnccl::v1::AgentMessage& message) override;

 private:
  CoordinatorSink& inner_;
  AgentMetrics& metrics_;
};

}  // namespace eb::agent
