#include "agent/core/worker_reports.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace eb::agent {
namespace v1 = ebnccl::v1;

namespace {

// Where `worker`'s rank runs, and its log after `message`.
void AttributeToRank(const SupervisedWorker& worker, const std::string& message,
                     v1::Failure& failure) {
  failure.set_rank(worker.assignment.rank());
  failure.set_node_name(worker.assignment.node_name());
  failure.set_local_rank(worker.assignment.local_rank());
  failure.set_device_index(worker.assignment.device_index());
  failure.set_message(absl::StrCat(message, " (log: ", worker.log_path, ")"));
}

}  // namespace

WorkerReports::WorkerReports(std::string node_name, CoordinatorSink& sink)
    : node_name_(std::move(node_name)), sink_(sink) {}

void WorkerReports::Failure(const std::string& test_id, SupervisedWorker& worker,
                            v1::WorkerEventKind kind, v1::FailureKind failure_kind,
                            const std::string& message, const common::ExitInfo* exit) {
  if (worker.reported) return;
  worker.reported = true;
  v1::AgentMessage out;
  v1::WorkerEvent& event = *out.mutable_worker_event();
  event.set_test_id(test_id);
  event.set_rank(worker.assignment.rank());
  event.set_kind(kind);
  v1::Failure& failure = *event.mutable_failure();
  failure.set_kind(failure_kind);
  AttributeToRank(worker, message, failure);
  if (exit != nullptr) {
    failure.set_exit_code(exit->exit_code);
    failure.set_signal(exit->signal);
  }
  spdlog::warn("test={} rank={} node={} slot={}: {}", test_id, worker.assignment.rank(), node_name_,
               worker.assignment.local_rank(), failure.message());
  sink_.SendToCoordinator(out);
}

void WorkerReports::Registered(const std::string& test_id, int rank, int pid) {
  v1::AgentMessage out;
  v1::WorkerEvent& event = *out.mutable_worker_event();
  event.set_test_id(test_id);
  event.set_rank(rank);
  event.set_kind(v1::WORKER_EVENT_KIND_REGISTERED);
  event.set_pid(pid);
  sink_.SendToCoordinator(out);
}

void WorkerReports::WorkerEvent(const v1::WorkerEvent& event, const SupervisedWorker& worker) {
  v1::AgentMessage out;
  *out.mutable_worker_event() = event;
  if (event.kind() == v1::WORKER_EVENT_KIND_FAILED) {
    v1::Failure& failure = *out.mutable_worker_event()->mutable_failure();
    AttributeToRank(worker, failure.message(), failure);
  }
  sink_.SendToCoordinator(out);
}

void WorkerReports::LaunchRefused(const v1::LaunchTest& launch, const absl::Status& refused,
                                  absl::string_view hint) {
  // Only what this node checked is echoed: the test id as sent (the
  // coordinator matches on it; gRPC bounds its size) and the first rank's
  // numbers.
  const std::string message = absl::StrCat(
      "the agent on node ", node_name_,
      " refused the launch, nothing was started: ", refused.ToString(), " (", hint, ")");
  spdlog::error("refused a launch from the coordinator: {}", refused.ToString());
  v1::AgentMessage out;
  v1::WorkerEvent& event = *out.mutable_worker_event();
  event.set_test_id(launch.test_id());
  const int rank = launch.ranks_size() > 0 ? launch.ranks(0).rank() : 0;
  event.set_rank(rank);
  event.set_kind(v1::WORKER_EVENT_KIND_EXITED);
  v1::Failure& failure = *event.mutable_failure();
  failure.set_kind(v1::FAILURE_KIND_LAUNCH_FAILED);
  failure.set_rank(rank);
  failure.set_node_name(node_name_);
  failure.set_message(message);
  sink_.SendToCoordinator(out);
  WorkersStopped(launch.test_id());
}

void WorkerReports::WorkersStopped(const std::string& test_id, v1::NodeTestEvidence evidence) {
  v1::AgentMessage message;
  message.mutable_workers_stopped()->set_test_id(test_id);
  if (evidence.ByteSizeLong() > 0) {
    *message.mutable_workers_stopped()->mutable_evidence() = std::move(evidence);
  }
  sink_.SendToCoordinator(message);
}

}  // namespace eb::agent
