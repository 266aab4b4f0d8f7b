#include "agent/metrics/agent_metrics.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace eb::agent {
namespace v1 = ebnccl::v1;

std::string FailureKindLabel(v1::FailureKind kind) {
  constexpr char kPrefix[] = "FAILURE_KIND_";
  std::string name = v1::FailureKind_Name(kind);
  if (name.empty()) return "unspecified";
  if (absl::StartsWith(name, kPrefix)) name = name.substr(sizeof(kPrefix) - 1);
  return absl::AsciiStrToLower(name);
}

AgentMetrics::AgentMetrics(common::MetricsRegistry& registry)
    : spawns_(registry.AddCounter("ebnccl_agent_worker_spawns_total",
                                  "Worker processes spawned since the agent started.")),
      failures_(registry.AddCounter("ebnccl_agent_worker_failures_total",
                                    "Worker failures reported to the coordinator, by failure kind.",
                                    {"kind"})),
      connected_(registry.AddGauge("ebnccl_agent_connected",
                                   "1 while registered with the coordinator, else 0.")),
      tests_running_(
          registry.AddGauge("ebnccl_agent_tests_running", "Tests with live workers on this node.")),
      workers_running_(registry.AddGauge("ebnccl_agent_workers_running",
                                         "Live (not yet reaped) worker processes.")) {
  // The kinds an agent itself detects, exported at 0 from the start.
  for (v1::FailureKind kind :
       {v1::FAILURE_KIND_WORKER_EXITED, v1::FAILURE_KIND_WORKER_HUNG,
        v1::FAILURE_KIND_WORKER_REGISTRATION_TIMEOUT, v1::FAILURE_KIND_LAUNCH_FAILED}) {
    failures_.Initialize({FailureKindLabel(kind)});
  }
}

void AgentMetrics::OnWorkerSpawned() { spawns_.Increment(); }

void AgentMetrics::OnWorkerFailure(v1::FailureKind kind) {
  failures_.Increment({FailureKindLabel(kind)});
}

void AgentMetrics::Update(const WorkerSupervisor& supervisor, bool connected) {
  connected_.Set(connected ? 1 : 0);
  tests_running_.Set(static_cast<double>(supervisor.RunningTests().size()));
  workers_running_.Set(supervisor.LiveWorkers());
}

absl::StatusOr<common::ChildHandle> MeteredProcessLauncher::Spawn(const common::ProcessSpec& spec,
                                                                  common::ExitCallback on_exit) {
  absl::StatusOr<common::ChildHandle> child = inner_.Spawn(spec, std::move(on_exit));
  if (child.ok()) metrics_.OnWorkerSpawned();
  return child;
}

absl::Status MeteredProcessLauncher::SignalGroup(const common::ChildHandle& child, int signal) {
  return inner_.SignalGroup(child, signal);
}

void MeteredCoordinatorSink::SendToCoordinator(const v1::AgentMessage& message) {
  if (message.has_worker_event()) {
    const v1::WorkerEvent& event = message.worker_event();
    if ((event.kind() == v1::WORKER_EVENT_KIND_FAILED ||
         event.kind() == v1::WORKER_EVENT_KIND_EXITED) &&
        event.has_failure()) {
      metrics_.OnWorkerFailure(event.failure().kind());
    }
  }
  inner_.SendToCoordinator(message);
}

}  // namespace eb::agent
