#pragma once

// What the sentinel (sentinel.h) asks of the rest of the coordinator,
// behind two interfaces so that its loop is tested with fakes and a fake
// clock: the scheduler (SchedulerService in production: its commands run
// on the scheduler's thread, the answers come back on the sentinel's
// executor) and the validations it starts on the borrowed pairs
// (ValidationManager). Plain interfaces; no gRPC, no I/O here.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "coordinator/scheduler/scheduler_types.h"

namespace eb::sentinel {

struct ProbeJob {
  std::string job_id;
  std::vector<std::string> nodes;  // exactly the nodes asked for
};

// Every answer is posted to the sentinel's executor, never called inline.
class ProbeScheduler {
 public:
  using NodesDone = std::function<void(absl::StatusOr<std::vector<scheduler::SchedulerNode>>)>;
  using BorrowDone = std::function<void(absl::StatusOr<ProbeJob>)>;
  // The job's nodes while it runs; empty while it is pending (a requeued
  // job is pending again); NOT_FOUND once it is gone (ended, cancelled,
  // preempted). Another error: the scheduler could not be read.
  using JobDone = std::function<void(absl::StatusOr<std::vector<std::string>>)>;

  virtual ~ProbeScheduler() = default;
  virtual void ReadNodes(NodesDone done) = 0;
  // Submits a preemptible probe job (the probe job name, QOS and
  // partition) for exactly `nodes`, for at most `seconds`, and answers
  // once it runs there (or with the error; the job is then ended).
  virtual void BorrowProbe(std::vector<std::string> nodes, int seconds, BorrowDone done) = 0;
  virtual void ReadJob(std::string job_id, JobDone done) = 0;
  // Ends the job (OK when it is already gone); audited by the service.
  virtual void GiveBack(std::string job_id, std::string why) = 0;
};

// The validations the probes run (ValidationManager in production). Their
// end comes back through Sentinel::OnValidationFinished.
class ProbeRunner {
 public:
  virtual ~ProbeRunner() = default;
  // Starts a validation of exactly `nodes`; its id.
  virtual absl::StatusOr<std::string> Start(const std::vector<std::string>& nodes) = 0;
  // The scheduler took the nodes back: stop the tests now, end PREEMPTED.
  virtual absl::Status Preempt(const std::string& id, const std::string& reason) = 0;
  // The scheduler cannot be read: stop (CANCELLED), never hold on blind.
  virtual absl::Status Cancel(const std::string& id, const std::string& reason) = 0;
};

// What ebnccl knows of its fleet when a tick plans: the nodes it can test
// (registered agents) and the verdict history.
struct FleetFacts {
  std::vector<std::string> ebnccl_nodes;
  std::vector<scheduler::NodeVerdictRecord> verdicts;
  // Rails of a node without an entry in node_rails (a CPU/Gloo host: one).
  int rails = 1;
  // Each registered node's rails: its GPUs (a rail is a GPU and its NIC),
  // for nodes that have any.
  std::map<std::string, int> node_rails;
};

}  // namespace eb::sentinel
