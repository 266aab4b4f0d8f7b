#pragma once

// What the WorkerSupervisor tells the coordinator about its workers, built
// and sent in one place: each failure names the rank, its node, slot and
// GPU and the rank's log, and is reported once. Runs on the agent's
// executor, as the supervisor does.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "agent/core/supervision_state.h"
#include "common/process/process_launcher.h"
#include "ebnccl/v1/agent.pb.h"

namespace eb::agent {

// Where the supervisor's reports go (the coordinator session).
class CoordinatorSink {
 public:
  virtual ~CoordinatorSink() = default;
  // Thread-safe, non-blocking; dropped when disconnected.
  virtual void SendToCoordinator(const ebnccl::v1::AgentMessage& message) = 0;
};

// A duration as the reports and log lines write it: "1.5s".
inline std::string FormatSeconds(absl::Duration duration) {
  return absl::StrFormat("%.3gs", absl::ToDoubleSeconds(duration));
}

class WorkerReports {
 public:
  // `node_name` names this node in the log lines.
  WorkerReports(std::string node_name, CoordinatorSink& sink);

  // `worker`'s failure as a `kind` event (EXITED or FAILED) with a Failure
  // of `failure_kind`, `message` followed by the rank's log path, and the
  // exit code and signal of `exit` when given. Once per worker: nothing
  // when worker.reported, which this sets.
  void Failure(const std::string& test_id, SupervisedWorker& worker,
               ebnccl::v1::WorkerEventKind kind, ebnccl::v1::FailureKind failure_kind,
               const std::string& message, const common::ExitInfo* exit = nullptr);
  // A worker's first registration; `pid` is the process this agent
  // spawned for it (the coordinator prints it as nccl-tests' Pid).
  void Registered(const std::string& test_id, int rank, int pid);
  // An event a worker reported itself, passed on; a FAILED one gains where
  // the rank runs (the agent knows it, not the worker) and its log path.
  void WorkerEvent(const ebnccl::v1::WorkerEvent& event, const SupervisedWorker& worker);
  // A launch refused whole, before anything was created: its first rank's
  // EXITED event saying why (`refused`, then `hint`, what the operator
  // should look at), then WorkersStopped, so that the coordinator fails the
  // test at once instead of at its registration deadline.
  void LaunchRefused(const ebnccl::v1::LaunchTest& launch, const absl::Status& refused,
                     absl::string_view hint);
  // Every worker of the test is reaped (or none ran here). `evidence` goes
  // with it unless empty.
  void WorkersStopped(const std::string& test_id, ebnccl::v1::NodeTestEvidence evidence = {});

 private:
  const std::string node_name_;
  CoordinatorSink& sink_;
};

}  // namespace eb::agent
