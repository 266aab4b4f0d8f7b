#pragma once

// The coordinator's side of scheduler integration (issue 30), on a thread
// of its own: the backend's commands block (up to their deadline), and the
// coordinator's event loop never waits for them. Two jobs:
//  - after each validation, a Reconcile pass (reconcile.h);
//  - before a validation starts, which of its nodes the scheduler holds
//    (leave_out.h), read fresh: the answer is posted back to the caller's
//    executor.
// Owned by the composition root; its methods are called on the
// coordinator's executor.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/exec/event_loop.h"
#include "common/exec/executor.h"
#include "common/time/clock.h"
#include "coordinator/scheduler/scheduler_backend.h"
#include "coordinator/scheduler_io/reconcile.h"

namespace eb::scheduler_io {

class SchedulerService {
 public:
  using LeaveOutDone = std::function<void(absl::StatusOr<std::map<std::string, std::string>>)>;

  // `owner` is the executor the answers are posted to; `backend` and
  // `audit` must outlive the service (its thread stops in the destructor).
  SchedulerService(common::Executor& owner, common::Clock& clock,
                   std::unique_ptr<scheduler::SchedulerBackend> backend, ActionAudit& audit,
                   scheduler::SchedulerPolicy policy);
  ~SchedulerService();

  const std::string& name() const { return name_; }

  // Queues a Reconcile pass; passes run one at a time, in order.
  void AfterValidation(ReconcileInput input);
  // Reads the scheduler and calls `done` on the owner executor with the
  // nodes of `names` to leave out and why; an error (naming the scheduler
  // and the command) when it cannot be read: then nothing may start.
  void LeaveOut(std::vector<std::string> names, LeaveOutDone done);

  // Waits until every queued pass is done (tests, shutdown).
  void Flush();

 private:
  common::Executor& owner_;
  common::Clock& clock_;
  std::unique_ptr<scheduler::SchedulerBackend> backend_;
  ActionAudit& audit_;
  const scheduler::SchedulerPolicy policy_;
  const std::string name_;
  // Last: stopped (joined) first in the destructor.
  std::unique_ptr<common::EventLoop> loop_;
};

}  // namespace eb::scheduler_io
