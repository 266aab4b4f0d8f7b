#pragma once

// What ebnccl asks of a scheduler (issue 30), whichever it is: the nodes
// with their state and drain reason, drain one with a reason, resume one,
// borrow nodes through a job and end that job. Implementations talk to the
// scheduler (coordinator/scheduler_io: Slurm through its CLI tools) and may
// block up to their deadline: call them off the coordinator's event loop.
// Every error names the scheduler and the command or request. The pure
// core (decision.h) decides; a backend only carries out.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "coordinator/scheduler/scheduler_types.h"

namespace eb::scheduler {

class SchedulerBackend {
 public:
  virtual ~SchedulerBackend() = default;

  // "slurm", "kubernetes": what logs and errors call it.
  virtual std::string Name() const = 0;

  // Every node of the configured partition (or cluster), each once, with
  // held_by_us set for the nodes one of our borrow jobs holds. All or
  // nothing: an answer that cannot be read whole is an error, never a
  // shorter list.
  virtual absl::StatusOr<std::vector<SchedulerNode>> ListNodes() = 0;

  // Drains `node` with `reason` (DecisionCore's, already one bounded line).
  virtual absl::Status Drain(const std::string& node, const std::string& reason) = 0;
  // Makes a node drained by us schedulable again.
  virtual absl::Status Resume(const std::string& node) = 0;

  // Submits a job that holds exactly `nodes` (exclusive) for at most
  // `seconds`, named `job_name`; returns its id once submitted. The
  // allocation may still be pending: JobNodes says when it runs.
  virtual absl::StatusOr<std::string> Borrow(const std::vector<std::string>& nodes,
                                             const std::string& job_name, int seconds) = 0;
  // The nodes the job runs on: empty while it is pending; NOT_FOUND once it
  // is gone (ended, cancelled, preempted).
  virtual absl::StatusOr<std::vector<std::string>> JobNodes(const std::string& job_id) = 0;
  // Ends the job (gives its nodes back). OK when it is already gone.
  virtual absl::Status EndJob(const std::string& job_id) = 0;
  // The ids of every job named `job_name` the scheduler still knows
  // (pending or running): what a restarted coordinator gives back.
  virtual absl::StatusOr<std::vector<std::string>> JobsNamed(const std::string& job_name) = 0;
};

}  // namespace eb::scheduler
