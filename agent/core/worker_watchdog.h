#pragma once

// The deadlines of a running test's workers (STYLE.md rules 15 and 17):
// every spawned worker registers within the launch's register_timeout_ms,
// and every registered worker that has not finished heartbeats at least
// every worker_hang_timeout (checked every tenth of it, at most a second
// apart). A miss is reported (WORKER_REGISTRATION_TIMEOUT, WORKER_HUNG) and
// stops the test; a hung worker is SIGKILLed, after NCCL's RAS has answered
// where it is asked (the hung rank's RAS thread may still tell where it is
// stuck). One per WorkerSupervisor, on its executor; it reads and changes
// the supervisor's tests, which outlive it. The stop cancels the timers.
// A check that runs late (the agent stopped or starved) judges nothing and
// runs again a moment later (common/time/late_check.h).

#include <string>

#include "agent/core/agent_core_config.h"
#include "agent/core/stop_sequence.h"
#include "agent/core/supervision_state.h"
#include "agent/core/worker_reports.h"
#include "common/exec/executor.h"
#include "common/time/clock.h"

namespace eb::agent {

class WorkerWatchdog {
 public:
  WorkerWatchdog(const AgentCoreConfig& config, common::Clock& clock, common::Executor& executor,
                 SupervisedTests& tests, WorkerReports& reports, StopSequence& stop);

  // Arms `test`'s registration deadline and heartbeat checks, once its
  // workers are spawned.
  void Watch(SupervisedTest& test);

 private:
  void OnRegisterDeadline(const std::string& test_id);
  void OnHeartbeatCheck(const std::string& test_id);
  absl::Duration HeartbeatCheckPeriod() const;
  void ArmRegisterDeadline(SupervisedTest& test, absl::Duration delay);
  void ArmHeartbeatCheck(SupervisedTest& test, absl::Duration delay);
  // Reports the workers silent past the hang timeout and marks them to be
  // killed; true when there was one.
  bool ReportHungWorkers(SupervisedTest& test);
  // Kills the hung workers at once when no RAS query will come first.
  void KillHungUnlessRasAsked(SupervisedTest& test);

  const AgentCoreConfig& config_;
  common::Clock& clock_;
  common::Executor& executor_;
  SupervisedTests& tests_;
  WorkerReports& reports_;
  StopSequence& stop_;
};

}  // namespace eb::agent
