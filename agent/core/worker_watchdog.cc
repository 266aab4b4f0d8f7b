#include "agent/core/worker_watchdog.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace eb::agent {
namespace v1 = ebnccl::v1;

WorkerWatchdog::WorkerWatchdog(const AgentCoreConfig& config, common::Clock& clock,
                               common::Executor& executor, SupervisedTests& tests,
                               WorkerReports& reports, StopSequence& stop)
    : config_(config),
      clock_(clock),
      executor_(executor),
      tests_(tests),
      reports_(reports),
      stop_(stop) {}

absl::Duration WorkerWatchdog::HeartbeatCheckPeriod() const {
  // A tenth: a stopped worker is named at most 10 % after its timeout (the
  // check is a scan of a few workers, cheap at any period).
  return std::min(config_.worker_hang_timeout / 10, absl::Seconds(1));
}

void WorkerWatchdog::Watch(SupervisedTest& test) {
  ArmRegisterDeadline(test, absl::Milliseconds(test.launch.register_timeout_ms()));
  test.heartbeat_check = common::LateCheck::ForPeriod(HeartbeatCheckPeriod());
  ArmHeartbeatCheck(test, HeartbeatCheckPeriod());
}

void WorkerWatchdog::ArmRegisterDeadline(SupervisedTest& test, absl::Duration delay) {
  test.register_check.Arm(clock_.Now() + delay);
  test.register_timer =
      executor_.PostAfter(delay, [this, test_id = test.id()] { OnRegisterDeadline(test_id); });
}

void WorkerWatchdog::ArmHeartbeatCheck(SupervisedTest& test, absl::Duration delay) {
  test.heartbeat_check.Arm(clock_.Now() + delay);
  test.watchdog_timer =
      executor_.PostAfter(delay, [this, test_id = test.id()] { OnHeartbeatCheck(test_id); });
}

void WorkerWatchdog::OnRegisterDeadline(const std::string& test_id) {
  auto it = tests_.find(test_id);
  if (it == tests_.end() || it->second.stopping) return;
  SupervisedTest& test = it->second;
  // Run late, the agent was not running: registrations may be queued.
  if (std::optional<absl::Duration> again = test.register_check.Defer(clock_.Now())) {
    test.register_timer =
        executor_.PostAfter(*again, [this, test_id] { OnRegisterDeadline(test_id); });
    return;
  }
  bool any = false;
  for (SupervisedWorker& worker : test.workers) {
    if (!worker.alive() || worker.registered) continue;
    any = true;
    reports_.Failure(
        test_id, worker, v1::WORKER_EVENT_KIND_EXITED, v1::FAILURE_KIND_WORKER_REGISTRATION_TIMEOUT,
        absl::StrCat("did not register with the agent within ",
                     FormatSeconds(absl::Milliseconds(test.launch.register_timeout_ms()))));
  }
  if (any) stop_.Begin(test, "a worker did not register in time", /*ask_ras=*/true);
}

void WorkerWatchdog::OnHeartbeatCheck(const std::string& test_id) {
  auto it = tests_.find(test_id);
  if (it == tests_.end() || it->second.stopping) return;
  SupervisedTest& test = it->second;
  // Run late, the agent was not running (a frozen agent resumed): the
  // workers' heartbeats of that time may be queued behind this check.
  if (std::optional<absl::Duration> again = test.heartbeat_check.Defer(clock_.Now())) {
    test.watchdog_timer =
        executor_.PostAfter(*again, [this, test_id] { OnHeartbeatCheck(test_id); });
    return;
  }
  if (!ReportHungWorkers(test)) {
    ArmHeartbeatCheck(test, HeartbeatCheckPeriod());
    return;
  }
  KillHungUnlessRasAsked(test);
  stop_.Begin(test, "a worker hung", /*ask_ras=*/true);
}

bool WorkerWatchdog::ReportHungWorkers(SupervisedTest& test) {
  const absl::Time now = clock_.Now();
  bool hung = false;
  for (SupervisedWorker& worker : test.workers) {
    if (!worker.registered || worker.finished || worker.exited || worker.reported) continue;
    const absl::Duration silence = now - worker.last_heartbeat;
    if (silence <= config_.worker_hang_timeout) continue;
    hung = true;
    reports_.Failure(
        test.id(), worker, v1::WORKER_EVENT_KIND_FAILED, v1::FAILURE_KIND_WORKER_HUNG,
        absl::StrCat("stopped heartbeating for ", FormatSeconds(silence), "; killed as hung"));
    worker.kill_after_ras = true;
  }
  return hung;
}

void WorkerWatchdog::KillHungUnlessRasAsked(SupervisedTest& test) {
  // With RAS to ask, the kill waits for its answer (StopSequence).
  if (stop_.ShouldQueryRas(test)) return;
  for (SupervisedWorker& worker : test.workers) {
    if (!worker.kill_after_ras) continue;
    worker.kill_after_ras = false;
    stop_.Kill(worker);
  }
}

}  // namespace eb::agent
