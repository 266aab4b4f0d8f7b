#include "coordinator/scheduler_io/scheduler_service.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include "absl/synchronization/notification.h"
#include "coordinator/scheduler/leave_out.h"
#include "spdlog/spdlog.h"

namespace eb::scheduler_io {

SchedulerService::SchedulerService(common::Executor& owner, common::Clock& clock,
                                   std::unique_ptr<scheduler::SchedulerBackend> backend,
                                   ActionAudit& audit, scheduler::SchedulerPolicy policy)
    : owner_(owner),
      clock_(clock),
      backend_(std::move(backend)),
      audit_(audit),
      policy_(std::move(policy)),
      name_(backend_->Name()),
      loop_(std::make_unique<common::EventLoop>("eb-scheduler")) {}

SchedulerService::~SchedulerService() { loop_->Stop(); }

void SchedulerService::AfterValidation(ReconcileInput input) {
  loop_->Post([this, input = std::move(input)] {
    absl::StatusOr<ReconcileOutcome> outcome =
        Reconcile(*backend_, audit_, input, policy_, clock_.Now());
    if (!outcome.ok()) {
      spdlog::error("scheduler {} after {}: nothing drained or resumed: {}", name_, input.trigger,
                    outcome.status().ToString());
    }
    // What it did, for the node listing.
    Refresh();
  });
}

void SchedulerService::LeaveOut(std::vector<std::string> names, LeaveOutDone done) {
  loop_->Post([this, names = std::move(names), done = std::move(done)]() mutable {
    absl::StatusOr<std::vector<scheduler::SchedulerNode>> nodes = backend_->ListNodes();
    if (nodes.ok()) Remember(*nodes);
    absl::StatusOr<std::map<std::string, std::string>> out =
        nodes.ok() ? absl::StatusOr<std::map<std::string, std::string>>(
                         scheduler::NodesToLeaveOut(*nodes, names, policy_.reason_prefix, name_))
                   : absl::StatusOr<std::map<std::string, std::string>>(nodes.status());
    owner_.Post([done = std::move(done), out = std::move(out)]() mutable { done(std::move(out)); });
  });
}

struct SchedulerService::Waiting {
  std::string job_id;
  std::vector<std::string> nodes;
  absl::Time deadline;
  BorrowDone done;
};

void SchedulerService::ReadNodes(NodesDone done) {
  loop_->Post([this, done = std::move(done)]() mutable {
    absl::StatusOr<std::vector<scheduler::SchedulerNode>> nodes = backend_->ListNodes();
    if (nodes.ok()) Remember(*nodes);
    Answer(std::move(done), std::move(nodes));
  });
}

void SchedulerService::ReadJob(std::string job_id, JobDone done) {
  loop_->Post([this, job_id = std::move(job_id), done = std::move(done)]() mutable {
    Answer(std::move(done), backend_->JobNodes(job_id));
  });
}

void SchedulerService::Borrow(std::vector<std::string> nodes, int seconds, BorrowDone done,
                              const std::string& job_name) {
  loop_->Post(
      [this, nodes = std::move(nodes), seconds, done = std::move(done), job_name]() mutable {
        auto answer = [this, &done](absl::StatusOr<Borrowed> result) {
          owner_.Post([done = std::move(done), result = std::move(result)]() mutable {
            done(std::move(result));
          });
        };
        const std::string target = absl::StrJoin(nodes, ",");
        const std::string what =
            absl::StrCat(nodes.size(), " node(s) for ", seconds, "s (", job_name, ")");
        if (absl::Status intent =
                audit_.Record("scheduler.borrow.intent", target, absl::OkStatus(), what);
            !intent.ok()) {
          answer(absl::UnavailableError(absl::StrCat(
              name_, ": nothing borrowed: the intent was not recorded: ", intent.message())));
          return;
        }
        absl::StatusOr<std::string> job = backend_->Borrow(nodes, job_name, seconds);
        if (!job.ok()) {
          (void)audit_.Record("scheduler.borrow", target, job.status(), what);
          answer(job.status());
          return;
        }
        // On record before any test runs: a restart finds the job to end.
        if (absl::Status recorded =
                audit_.Record("scheduler.borrow", target, absl::OkStatus(), "job " + *job);
            !recorded.ok()) {
          EndAudited(*job, "its id was not recorded");
          answer(absl::UnavailableError(absl::StrCat(
              name_, ": job ", *job, " ended: its id was not recorded: ", recorded.message())));
          return;
        }
        spdlog::info("scheduler {}: job {} borrows {}", name_, *job, target);
        auto waiting = std::make_shared<Waiting>();
        waiting->job_id = *job;
        waiting->nodes = std::move(nodes);
        waiting->deadline = clock_.Now() + allocation_timeout_;
        waiting->done = std::move(done);
        Poll(std::move(waiting));
      });
}

void SchedulerService::Poll(std::shared_ptr<Waiting> waiting) {
  auto fail = [this, &waiting](const absl::Status& error) {
    EndAudited(waiting->job_id, "not allocated as asked");
    owner_.Post([done = std::move(waiting->done), error] { done(error); });
  };
  absl::StatusOr<std::vector<std::string>> allocated = backend_->JobNodes(waiting->job_id);
  if (!allocated.ok()) {
    fail(absl::Status(allocated.status().code(),
                      absl::StrCat(name_, ": borrow job ", waiting->job_id,
                                   " did not start: ", allocated.status().message())));
    return;
  }
  if (allocated->empty()) {
    if (clock_.Now() >= waiting->deadline) {
      fail(absl::DeadlineExceededError(
          absl::StrCat(name_, ": borrow job ", waiting->job_id, " (sbatch --exclusive --nodelist=",
                       absl::StrJoin(waiting->nodes, ","), ") was not allocated within ",
                       absl::FormatDuration(allocation_timeout_), "; nothing tested")));
      return;
    }
    loop_->PostAfter(poll_,
                     [this, waiting = std::move(waiting)]() mutable { Poll(std::move(waiting)); });
    return;
  }
  std::vector<std::string> want = waiting->nodes;
  std::vector<std::string> got = *allocated;
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  if (want != got) {
    fail(absl::FailedPreconditionError(absl::StrCat(
        name_, ": borrow job ", waiting->job_id, " runs on ", absl::StrJoin(got, ","),
        ", not on the nodes asked for (", absl::StrJoin(want, ","), "); nothing tested")));
    return;
  }
  spdlog::info("scheduler {}: job {} runs on {}", name_, waiting->job_id, absl::StrJoin(got, ","));
  Borrowed borrowed{waiting->job_id, std::move(*allocated)};
  owner_.Post([done = std::move(waiting->done), borrowed = std::move(borrowed)]() mutable {
    done(std::move(borrowed));
  });
}

void SchedulerService::EndAudited(const std::string& job_id, const std::string& why) {
  // Ending a job only gives nodes back: done even if the intent could not
  // be recorded (a job left running would hold them until its time limit).
  (void)audit_.Record("scheduler.give_back.intent", "job " + job_id, absl::OkStatus(), why);
  absl::Status ended = backend_->EndJob(job_id);
  (void)audit_.Record("scheduler.give_back", "job " + job_id, ended, why);
  if (!ended.ok()) {
    spdlog::error("scheduler {}: job {} not ended ({}): {}", name_, job_id, why, ended.ToString());
  } else {
    spdlog::info("scheduler {}: job {} ended: {}", name_, job_id, why);
  }
}

void SchedulerService::GiveBack(std::string job_id, std::string why) {
  loop_->Post(
      [this, job_id = std::move(job_id), why = std::move(why)] { EndAudited(job_id, why); });
}

void SchedulerService::Release(const std::string& validation_id, const std::string& why) {
  auto it = held_.find(validation_id);
  if (it == held_.end()) return;
  std::string job = std::move(it->second);
  held_.erase(it);
  GiveBack(std::move(job), absl::StrCat("validation ", validation_id, " ", why));
}

void SchedulerService::GiveBackStale() {
  loop_->Post([this] {
    for (const char* job_name : {kBorrowJobName, kProbeJobName}) {
      absl::StatusOr<std::vector<std::string>> jobs = backend_->JobsNamed(job_name);
      if (!jobs.ok()) {
        spdlog::error("scheduler {}: the {} jobs of a previous run cannot be listed: {}", name_,
                      job_name, jobs.status().ToString());
        continue;
      }
      for (const std::string& job : *jobs) EndAudited(job, "held by a previous run");
    }
  });
}

void SchedulerService::Remember(const std::vector<scheduler::SchedulerNode>& nodes) {
  View view;
  view.read = clock_.Now();
  for (const scheduler::SchedulerNode& node : nodes) view.nodes[node.name] = node;
  absl::MutexLock lock(&view_mu_);
  view_ = std::move(view);
}

void SchedulerService::Refresh() {
  absl::StatusOr<std::vector<scheduler::SchedulerNode>> nodes = backend_->ListNodes();
  if (!nodes.ok()) {
    // The listing keeps the last read, and says when it was.
    spdlog::warn("scheduler {}: nodes not read: {}", name_, nodes.status().ToString());
    return;
  }
  Remember(*nodes);
}

SchedulerService::View SchedulerService::LastRead() const {
  absl::MutexLock lock(&view_mu_);
  return view_;
}

void SchedulerService::RefreshEvery(absl::Duration period) {
  loop_->Post([this, period] {
    Refresh();
    loop_->PostAfter(period, [this, period] { RefreshEvery(period); });
  });
}

void SchedulerService::Flush() {
  absl::Notification flushed;
  loop_->Post([&flushed] { flushed.Notify(); });
  flushed.WaitForNotification();
}

}  // namespace eb::scheduler_io
