#pragma once

// The coordinator's side of scheduler integration (issue 30), on a thread
// of its own: the backend's commands block (up to their deadline), and the
// coordinator's event loop never waits for them. Two jobs:
//  - after each validation, a Reconcile pass (reconcile.h);
//  - before a validation starts, which of its nodes the scheduler holds
//    (leave_out.h), read fresh: the answer is posted back to the caller's
//    executor;
//  - a validation's nodes borrowed through a scheduler job before its
//    first test, and the job ended when it ends (Borrow, GiveBack); at
//    start-up, the jobs a previous run left are ended (GiveBackStale).
// Every borrow and give-back is audited, the job id before any test runs.
// Owned by the composition root; its methods are called on the
// coordinator's executor.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/exec/event_loop.h"
#include "common/exec/executor.h"
#include "common/time/clock.h"
#include "coordinator/scheduler/scheduler_backend.h"
#include "coordinator/scheduler_io/reconcile.h"

namespace eb::scheduler_io {

class SchedulerService {
 public:
  // The name of ebnccl's borrow jobs (SlurmBackendConfig::job_name).
  static constexpr char kBorrowJobName[] = "ebnccl-borrow";
  // The name of the sentinel's probe jobs (SlurmBackendConfig::probe_job_name).
  static constexpr char kProbeJobName[] = "ebnccl-probe";

  struct Borrowed {
    std::string job_id;
    // The nodes the scheduler allocated: exactly the ones asked for.
    std::vector<std::string> nodes;
  };
  using BorrowDone = std::function<void(absl::StatusOr<Borrowed>)>;
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

  // Submits the job that borrows `nodes` for `seconds`, waits (polling
  // every `poll`, at most `allocation_timeout`) until it runs, and calls
  // `done` on the owner executor with the job and its nodes; an error
  // naming the scheduler and the command when it cannot be submitted, is
  // not allocated in time or not on exactly `nodes` (the job is ended).
  // `job_name`: kBorrowJobName, or kProbeJobName for the sentinel's
  // preemptible probes (the backend submits those with its probe QOS).
  void Borrow(std::vector<std::string> nodes, int seconds, BorrowDone done,
              const std::string& job_name = kBorrowJobName);
  // The sentinel's reads (coordinator/sentinel), on the service's thread,
  // answered on the owner executor: the scheduler's nodes (remembered for
  // the listing too), and the nodes of job `job_id` (empty while pending,
  // NOT_FOUND once gone).
  using NodesDone = std::function<void(absl::StatusOr<std::vector<scheduler::SchedulerNode>>)>;
  using JobDone = std::function<void(absl::StatusOr<std::vector<std::string>>)>;
  void ReadNodes(NodesDone done);
  void ReadJob(std::string job_id, JobDone done);
  // Ends the job `job_id` (`why`: the log's and audit's words).
  void GiveBack(std::string job_id, std::string why);
  // Ends every borrow and probe job the scheduler still knows: at start-up
  // no validation or probe runs, so they are a previous run's (issue 30:
  // "borrowed nodes are given back").
  void GiveBackStale();

  // On the owner executor: validation `validation_id` runs on the nodes of
  // job `job_id`; Release (when the validation ends, however it ends)
  // gives them back.
  void Hold(const std::string& validation_id, const std::string& job_id) {
    held_[validation_id] = job_id;
  }
  void Release(const std::string& validation_id, const std::string& why);

  // How long a borrow job is asked for when the validation names no timeout.
  absl::Duration default_borrow() const { return default_borrow_; }
  void set_default_borrow(absl::Duration borrow) { default_borrow_ = borrow; }
  void set_allocation_timeout(absl::Duration timeout) { allocation_timeout_ = timeout; }
  void set_poll_interval(absl::Duration poll) { poll_ = poll; }

  // The scheduler's nodes as last read (LeaveOut, after each Reconcile
  // pass, RefreshEvery), for the node listing: never a read on the
  // caller's thread. read == InfinitePast() before the first read.
  struct View {
    absl::Time read = absl::InfinitePast();
    std::map<std::string, scheduler::SchedulerNode> nodes;
  };
  View LastRead() const;
  // Reads the scheduler now and every `period` after, on its thread.
  void RefreshEvery(absl::Duration period);
  // The reason prefix that marks ebnccl's drains (policy).
  const std::string& reason_prefix() const { return policy_.reason_prefix; }

  // Waits until every queued pass is done (tests, shutdown).
  void Flush();

 private:
  common::Executor& owner_;
  common::Clock& clock_;
  std::unique_ptr<scheduler::SchedulerBackend> backend_;
  ActionAudit& audit_;
  const scheduler::SchedulerPolicy policy_;
  const std::string name_;
  absl::Duration allocation_timeout_ = absl::Seconds(60);
  absl::Duration default_borrow_ = absl::Hours(6);
  // Owner executor only: validation id -> its borrow job.
  std::map<std::string, std::string> held_;
  absl::Duration poll_ = absl::Milliseconds(500);

  // On the service's thread: reads the scheduler into view_.
  void Refresh();
  void Remember(const std::vector<scheduler::SchedulerNode>& nodes);
  mutable absl::Mutex view_mu_;
  View view_ ABSL_GUARDED_BY(view_mu_);

  struct Waiting;
  // Posts `fn(value)` to the owner executor.
  template <typename Fn, typename Value>
  void Answer(Fn done, Value value) {
    owner_.Post(
        [done = std::move(done), value = std::move(value)]() mutable { done(std::move(value)); });
  }
  // One poll of a pending borrow job; re-posted after poll_ until it runs.
  void Poll(std::shared_ptr<Waiting> waiting);
  // Ends the job, audited; the error for `done` when it could not be.
  void EndAudited(const std::string& job_id, const std::string& why);
  // Last: stopped (joined) first in the destructor.
  std::unique_ptr<common::EventLoop> loop_;
};

}  // namespace eb::scheduler_io
