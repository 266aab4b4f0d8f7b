#pragma once

// One test on the coordinator, from launch to verdict: the owner that wires
// the pieces of a test together and talks to its TestRunHost.
//   RunProgress    every rank's progress (registered -> joined -> sizes
//                  done -> finished) and the phase it puts the test in
//   RunResults     every SIZE_DONE checked against the sweep, rows
//                  aggregated as soon as every rank reported a size
//   DeadlineJudge  whom a passed deadline blames (launch, init, each size
//                  step, the whole test)
//   RunNodes       the nodes and where each stands in the stop
//   run_verdict.h  the verdict, in steps, once the test is over
//
// Phases: LAUNCHING -> INITIALIZING -> RUNNING -> STOPPING -> terminal. The
// phase is the slowest rank's progress, so events that arrive out of order
// over different agents' streams are handled. Any failure moves the test to
// STOPPING: every agent is told to stop its workers, and the test is
// finalized once every live agent confirmed they are gone (or stop_timeout
// passed), so that when the client sees the verdict no worker is left.
//
// Owned by the coordinator's executor: every method runs on it.

#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "common/exec/executor.h"
#include "common/time/clock.h"
#include "common/time/late_check.h"
#include "coordinator/core/budget/audit_rate_limit.h"
#include "coordinator/core/collective_tests/run_deadlines.h"
#include "coordinator/core/collective_tests/run_nodes.h"
#include "coordinator/core/collective_tests/run_progress.h"
#include "coordinator/core/collective_tests/run_results.h"
#include "coordinator/core/collective_tests/size_progress.h"
#include "coordinator/core/collective_tests/stall_watch.h"
#include "coordinator/core/collective_tests/sweep_plan.h"
#include "ebnccl/v1/agent.pb.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

// Side effects of a TestRun, implemented by the TestManager.
class TestRunHost {
 public:
  virtual ~TestRunHost() = default;
  // Sends a command to the agent of `node` (dropped if it is gone).
  virtual void SendToNode(const std::string& node,
                          const ebnccl::v1::CoordinatorMessage& message) = 0;
  // Delivers a progress event to the test's client.
  virtual void Publish(const std::string& test_id, const ebnccl::v1::RunTestEvent& event) = 0;
  // The test reached a terminal state (called once; the final event has
  // been published).
  virtual void Finished(const std::string& test_id) = 0;
};

class TestRun {
 public:
  // `spec` is normalized and its transport resolved; `ranks` in rank order;
  // `sweep` the test's sweep (LayOutSweep over its ranks), the one list
  // every rank runs and reports against. `inventories` in node order, for
  // the report.
  TestRun(std::string test_id, ebnccl::v1::TestSpec spec,
          std::vector<ebnccl::v1::RankAssignment> ranks, std::vector<PlannedSize> sweep,
          std::vector<ebnccl::v1::NodeInventory> inventories, TestRunTimeouts timeouts,
          common::Clock& clock, common::Executor& executor, TestRunHost& host);
  ~TestRun();

  TestRun(const TestRun&) = delete;
  TestRun& operator=(const TestRun&) = delete;

  // Publishes `accepted`, sends LaunchTest to every node, arms deadlines.
  void Start();
  // An event relayed by the agent of `node`. Events for ranks that `node`
  // does not run are ignored (and logged). A SIZE_DONE whose size or count
  // is not that of the rank's next size of the sweep fails the test (the
  // worker ran another sweep: mixed ebnccl versions) and is not counted.
  void OnWorkerEvent(const std::string& node, const ebnccl::v1::WorkerEvent& event);
  // The agent of `node` reaped every worker of this test.
  void OnWorkersStopped(const std::string& node);
  // What that agent collected (ports, NCCL warnings, NICs; issue 12),
  // sent with its WorkersStopped: call before OnWorkersStopped.
  void OnNodeEvidence(const std::string& node, const ebnccl::v1::NodeTestEvidence& evidence);
  // The agent of `node` is gone.
  void OnNodeLost(const std::string& node, const std::string& reason);
  // The client cancelled.
  void Cancel(const std::string& reason);
  // The coordinator is shutting down: tells every agent to stop the
  // workers and ends the test now as INTERRUPTED (it cannot wait for the
  // agents' confirmation: the process is about to exit). No-op once
  // finished.
  void Interrupt(const std::string& reason);

  const std::string& id() const { return report_.test_id(); }
  const ebnccl::v1::TestReport& report() const { return report_; }
  // Who started the test (TestReport.started_by); set before Start().
  void set_started_by(const std::string& who) { report_.set_started_by(who); }
  // Drift the test runs with (TestSpec.allow_drift); set before Start().
  void add_drift_warning(const std::string& line) { report_.add_drift_warnings(line); }
  bool finished() const { return finished_; }
  // Node names in node order.
  const std::vector<std::string>& nodes() const { return nodes_.names(); }
  // Whether `node` runs ranks of this test.
  bool HasNode(const std::string& node) const { return nodes_.Has(node); }

 private:
  // OnWorkerEvent, by kind.
  // REGISTERED: the rank's worker pid, if in range and not known yet.
  void KeepPid(int rank, const std::string& node, int32_t pid);
  void OnSizeDone(int rank, const std::string& node, const ebnccl::v1::RankSizeResult& result);
  // Calls completed inside a size: restart the hang deadline, and stop a
  // size predicted to miss its deadline.
  void OnProgress(int rank, const ebnccl::v1::IterationProgress& progress);
  // Every rank is in a new step of the sweep: watch its progress, and time
  // the whole size against the step deadline.
  void EnterStep();
  void OnSizeDeadline(int step);
  // The stall limit of the size in progress (StallWatch): its one timer is
  // armed for the earliest deadline known, and looks again when it fires.
  void ArmStallTimer();
  void OnStallDeadline(int step);
  void OnRankFinished(int rank);
  void OnRankFailed(int rank, const ebnccl::v1::Failure& failure);
  // Raises `rank` to `level`; any progress while RUNNING restarts the
  // step deadline.
  void Raise(int rank, int level);
  // Moves the test to the phase of its slowest rank (arming that phase's
  // deadline), or to STOPPING once every rank finished.
  void UpdatePhase();
  void SetState(ebnccl::v1::TestState state);
  void ArmPhaseTimer(absl::Duration timeout);
  void OnPhaseDeadline();
  void OnTotalDeadline();
  void AddFailure(ebnccl::v1::Failure failure);
  // A node's event that is not taken (a rank it does not run, a pid out of
  // range, an unknown kind, a rank's failures past kMaxFailuresPerRank):
  // logged at most once per node and `reason` every 10 s, with the count
  // left out since, so that a node's flood of bad events is not a flood of
  // log lines (issue 32, the compromised-agent benchmark).
  void WarnRefusedEvent(const std::string& node, const std::string& reason,
                        const std::string& line);
  void BeginStopping();
  void OnStopDeadline();
  void MaybeFinalize();
  // Whether every rank of `node` finished (true for a node without ranks).
  bool NodeFinished(const std::string& node) const;
  // Tells the agent of `node` to stop this test's workers.
  void SendStop(const std::string& node, const std::string& reason);
  // Judges the test (run_verdict.h) and ends it.
  void Finalize();
  // Marks the run finished and publishes the report as the final event.
  void PublishFinal();

  ebnccl::v1::TestReport report_;
  const TestRunTimeouts timeouts_;
  common::Clock& clock_;
  common::Executor& executor_;
  TestRunHost& host_;
  RunNodes nodes_;
  RunResults results_;
  RunProgress progress_;
  DeadlineJudge deadlines_;
  SizeProgressWatch size_watch_;
  StallWatch stall_watch_;

  bool stopping_ = false;
  bool cancelled_ = false;
  bool finished_ = false;
  std::string cancel_reason_;
  AuditRateLimit refused_events_log_{absl::Seconds(10)};
  // Failures taken from each rank's own events (FAILED, EXITED).
  std::map<int, int> rank_failures_;
  common::TimerId phase_timer_ = 0;
  common::TimerId size_timer_ = 0;
  common::TimerId stall_timer_ = 0;  // 0: none pending
  absl::Time stall_due_ = absl::InfiniteFuture();
  common::TimerId total_timer_ = 0;
  common::TimerId stop_timer_ = 0;
  // The deadlines that judge the ranks' silence do not judge the
  // coordinator's own stall (common/time/late_check.h).
  common::LateCheck phase_check_ = common::LateCheck::ForDeadline();
  common::LateCheck size_check_ = common::LateCheck::ForDeadline();
  common::LateCheck stall_check_ = common::LateCheck::ForDeadline();
  common::LateCheck total_check_ = common::LateCheck::ForDeadline();
};

}  // namespace eb::coordinator
