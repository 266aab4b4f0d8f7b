#pragma once

// The sentinel's ports (coordinator/sentinel/sentinel_ports.h) over the
// coordinator's own parts: the scheduler service (its thread talks to the
// scheduler, answers on the coordinator's loop) and the validation manager
// (a probe is a validation of exactly the borrowed pair). Composition-root
// glue; every method runs on the coordinator's loop.

#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/core/validation_manager.h"
#include "coordinator/scheduler_io/scheduler_service.h"
#include "coordinator/sentinel/sentinel_ports.h"

namespace eb::coordinator {

class ServiceProbeScheduler final : public sentinel::ProbeScheduler {
 public:
  explicit ServiceProbeScheduler(scheduler_io::SchedulerService& service) : service_(service) {}
  void ReadNodes(NodesDone done) override { service_.ReadNodes(std::move(done)); }
  void BorrowProbe(std::vector<std::string> nodes, int seconds, BorrowDone done) override;
  void ReadJob(std::string job_id, JobDone done) override {
    service_.ReadJob(std::move(job_id), std::move(done));
  }
  void GiveBack(std::string job_id, std::string why) override {
    service_.GiveBack(std::move(job_id), std::move(why));
  }

 private:
  scheduler_io::SchedulerService& service_;
};

class ValidationProbeRunner final : public sentinel::ProbeRunner {
 public:
  // `timeout`: each probe validation's deadline (sentinel.probe_duration).
  ValidationProbeRunner(ValidationManager& validations, absl::Duration timeout)
      : validations_(validations), timeout_(timeout) {}
  absl::StatusOr<std::string> Start(const std::vector<std::string>& nodes) override;
  absl::Status Preempt(const std::string& id, const std::string& reason) override {
    return validations_.Preempt(id, reason);
  }
  absl::Status Cancel(const std::string& id, const std::string& reason) override {
    return validations_.Cancel(id, reason);
  }

 private:
  ValidationManager& validations_;
  const absl::Duration timeout_;
};

// A no-op observer: nobody watches a probe live; its report is recorded.
std::shared_ptr<ValidationObserver> NoObserver();

}  // namespace eb::coordinator
