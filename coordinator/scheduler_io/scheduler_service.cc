#include "coordinator/scheduler_io/scheduler_service.h"

#include <utility>

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
  });
}

void SchedulerService::LeaveOut(std::vector<std::string> names, LeaveOutDone done) {
  loop_->Post([this, names = std::move(names), done = std::move(done)]() mutable {
    absl::StatusOr<std::vector<scheduler::SchedulerNode>> nodes = backend_->ListNodes();
    absl::StatusOr<std::map<std::string, std::string>> out =
        nodes.ok() ? absl::StatusOr<std::map<std::string, std::string>>(
                         scheduler::NodesToLeaveOut(*nodes, names, policy_.reason_prefix, name_))
                   : absl::StatusOr<std::map<std::string, std::string>>(nodes.status());
    owner_.Post([done = std::move(done), out = std::move(out)]() mutable { done(std::move(out)); });
  });
}

void SchedulerService::Flush() {
  absl::Notification flushed;
  loop_->Post([&flushed] { flushed.Notify(); });
  flushed.WaitForNotification();
}

}  // namespace eb::scheduler_io
