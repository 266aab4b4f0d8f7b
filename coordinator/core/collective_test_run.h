#pragma once

// One test on the coordinator, from launch to verdict. It tracks every
// rank's progress (registered -> joined -> sizes done -> finished), enforces
// a deadline on every phase (launch, init, each size step, the whole test,
// and the final stop), aggregates per-size results as soon as every rank
// reported a size, and attributes failures to rank, node and slot.
//
// Phases: LAUNCHING -> INITIALIZING -> RUNNING -> STOPPING -> terminal. The
// phase is the slowest rank's progress, so events that arrive out of order
// over different agents' streams are handled. Any failure moves the test to
// STOPPING: every agent is told to stop its workers, and the test is
// finalized once every live agent confirmed they are gone (or stop_timeout
// passed), so that when the client sees the verdict no worker is left.
//
// Owned by the coordinator's executor: every method runs on it.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "common/exec/executor.h"
#include "common/time/clock.h"
#include "coordinator/core/sweep_plan.h"
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

struct TestRunTimeouts {
  absl::Duration total;
  absl::Duration launch;
  absl::Duration init;
  absl::Duration step;
  absl::Duration stop;
};

class TestRun {
 public:
  // `spec` is normalized and its transport resolved; `ranks` in rank order;
  // `sweep` the test's sweep (PlanSweep), the one list every rank runs and
  // reports against. `inventories` in node order, for the report.
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
  const std::vector<std::string>& nodes() const { return nodes_; }
  // Whether `node` runs ranks of this test.
  bool HasNode(const std::string& node) const { return node_index_.contains(node); }

 private:
  // Per-rank progress levels, in order.
  enum Level : int { kLaunched = 0, kRegistered = 1, kJoining = 2, kJoined = 3 };
  struct RankProgress {
    int level = kLaunched;  // kJoined + sizes done, +1 more when finished
    bool finished = false;
    bool failed = false;
    int64_t wrong_elements = 0;
    std::vector<ebnccl::v1::RankSizeResult> sizes;
    // The sweep on the rank's rail (split_rails), after `sizes`.
    std::vector<ebnccl::v1::RankSizeResult> rail_sizes;
  };

  // Sizes every rank reports: the sweep, then the rail sweep.
  int Steps() const { return static_cast<int>(sweep_.size() + rail_sweep_.size()); }
  int FinishedLevel() const { return kJoined + Steps() + 1; }
  // A SIZE_DONE of the rank's rail (RankSizeResult.rail); see OnWorkerEvent.
  void OnRailSize(int rank, const std::string& node, const ebnccl::v1::RankSizeResult& result);
  // The size at progress level `level` ("size 4096", "rail size 4096").
  std::string StepName(int level) const;
  void Raise(int rank, int level);
  void UpdatePhase();
  void SetState(ebnccl::v1::TestState state);
  void ArmPhaseTimer(absl::Duration timeout);
  void OnPhaseDeadline();
  void OnTotalDeadline();
  void EmitReadyRows();
  void EmitReadyRailRows();
  void AddFailure(ebnccl::v1::Failure failure);
  void BeginStopping();
  void OnStopDeadline();
  void MaybeFinalize();
  // Nodes that are neither lost nor confirmed their workers stopped, in
  // node order.
  std::vector<std::string> NodesStillRunning() const;
  // Records that `node` is lost or confirmed its workers stopped.
  void NodeDone(const std::string& node);
  // Whether every rank of `node` finished (true for a node without ranks).
  bool NodeFinished(const std::string& node) const;
  // Tells the agent of `node` to stop this test's workers.
  void SendStop(const std::string& node, const std::string& reason);
  void Finalize();
  ebnccl::v1::Failure RankFailure(int rank, ebnccl::v1::FailureKind kind,
                                  const std::string& message) const;
  std::string DescribeRank(int rank) const;
  // The step deadline passed with every rank inside size `index`: TOO_SLOW
  // (rank -1) when the sizes measured so far predict that it needs at least
  // half the deadline, else TIMEOUT (rank -1): stuck, with nobody behind.
  ebnccl::v1::Failure StuckSizeFailure(size_t index) const;
  std::string DescribeLaggards(const char* what) const;

  ebnccl::v1::TestReport report_;
  const std::vector<PlannedSize> sweep_;
  // The same sweep over a rail's world (one rank per node) when
  // split_rails; empty otherwise. A rail's sizes and counts differ from the
  // full sweep's for collectives whose layout depends on the world size.
  std::vector<PlannedSize> rail_sweep_;
  // Rows aggregated so far per rail (index = rail = local rank).
  std::vector<size_t> rail_rows_emitted_;
  std::vector<std::string> nodes_;
  TestRunTimeouts timeouts_;
  common::Clock& clock_;
  common::Executor& executor_;
  TestRunHost& host_;

  std::vector<RankProgress> progress_;
  // Per-event work is O(1) in the number of ranks (issue 15): these counts
  // replace scans over all ranks on every event.
  // Ranks at each progress level (index = level, 0..FinishedLevel()).
  std::vector<int> ranks_at_level_;
  // The lowest level any rank is at (the slowest rank's progress).
  int min_level_ = kLaunched;
  // Ranks that reported size i of the sweep; per rail, members that
  // reported size i of the rail sweep.
  std::vector<int> size_reports_;
  std::vector<std::vector<int>> rail_reports_;
  // Node name -> index in node_ranks_: each node's ranks.
  std::map<std::string, int> node_index_;
  std::vector<std::vector<int>> node_ranks_;
  // Nodes of node_index_ that are lost or confirmed their workers stopped.
  size_t nodes_done_ = 0;
  size_t rows_emitted_ = 0;
  std::set<std::string> lost_nodes_;
  std::set<std::string> stopped_nodes_;
  bool stopping_ = false;
  bool cancelled_ = false;
  bool finished_ = false;
  std::string cancel_reason_;
  common::TimerId phase_timer_ = 0;
  common::TimerId total_timer_ = 0;
  common::TimerId stop_timer_ = 0;
};

}  // namespace eb::coordinator
