#pragma once

// Accepts tests, places them on nodes, and routes agents' events to the
// running TestRuns; records every test in the TestHistory (when it starts
// and when it finishes). Owned by the coordinator's executor: every method
// runs on it.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/exec/executor.h"
#include "common/time/clock.h"
#include "coordinator/config.h"
#include "coordinator/core/collective_tests/collective_test_placement.h"
#include "coordinator/core/collective_tests/collective_test_run.h"
#include "coordinator/core/collective_tests/rendezvous_kv.h"
#include "coordinator/core/collective_tests/sweep_plan.h"
#include "coordinator/core/nodes/node_registry.h"
#include "coordinator/history/history_store.h"
#include "ebnccl/v1/agent.pb.h"

namespace eb::coordinator {

// The client of one test (the RunTest stream). Thread-safe, non-blocking.
class TestObserver {
 public:
  virtual ~TestObserver() = default;
  // Called for every event; the last one is `finished`.
  virtual void OnEvent(const ebnccl::v1::RunTestEvent& event) = 0;
};

class TestManager final : public TestRunHost {
 public:
  // Generates test ids; injectable so tests get stable ids.
  using IdGenerator = std::function<std::string()>;
  // Called on the executor with the final report of each test that reached
  // its verdict (e.g. to count it in the metrics).
  using FinishedCallback = std::function<void(const ebnccl::v1::TestReport&)>;

  // `history` must outlive the manager; its errors are logged, never
  // fatal to a test.
  TestManager(common::Clock& clock, common::Executor& executor, NodeRegistry& registry,
              RendezvousKv& rendezvous, const CoordinatorConfig& config, TestHistory& history,
              IdGenerator id_generator = nullptr);
  ~TestManager() override;

  // Replaces the finished-test callback (for wiring). Call before tests run.
  void set_on_finished(FinishedCallback on_finished) { on_finished_ = std::move(on_finished); }

  // Validates and places `spec`, then starts it. Nothing is started on
  // error: INVALID_ARGUMENT naming the field; NOT_FOUND for an unknown node;
  // UNAVAILABLE for a lost node; RESOURCE_EXHAUSTED for busy nodes, too
  // few slots or GPUs, or two nodes of one host that would put NCCL ranks on
  // the same GPU (gpu_sharing.h); FAILED_PRECONDITION when no node is registered or the nodes
  // lack a common transport. Returns the test id; every event goes to
  // `observer`, starting with `accepted`.
  // `started_by` (the caller's identity) goes into the report. Nodes
  // reserved by someone else (Reserve) are RESOURCE_EXHAUSTED when named and
  // left out of "every idle node"; `reservation` names the holder whose
  // reserved nodes this test may use.
  absl::StatusOr<std::string> StartTest(const ebnccl::v1::TestSpec& spec,
                                        std::shared_ptr<TestObserver> observer,
                                        const std::string& started_by = "",
                                        const std::string& reservation = "");
  // Holds `nodes` for `holder` (a validation, between its rounds), so that
  // no other test takes them while they are idle. A node keeps its first
  // holder. Release frees every node `holder` holds.
  void Reserve(const std::vector<std::string>& nodes, const std::string& holder);
  void Release(const std::string& holder);
  // The holder of `node`'s reservation, or "" when it has none.
  std::string ReservedBy(const std::string& node) const;
  // NOT_FOUND for an unknown or finished test.
  absl::Status CancelTest(const std::string& test_id, const std::string& reason);
  // Ends every running test as INTERRUPTED (recorded, and the final event
  // sent to its client) and tells the agents to stop their workers: the
  // coordinator is going away, which says nothing about the nodes.
  void InterruptAll(const std::string& reason);
  // A running test (live report) or one from the history. NOT_FOUND
  // otherwise; DATA_LOSS or a storage error from the history.
  absl::StatusOr<ebnccl::v1::TestReport> GetTest(const std::string& test_id) const;
  // The running test `test_id`, or null: a look-up without GetTest's copy
  // of the whole report (every rendezvous call asks, issue 15).
  const TestRun* FindRunning(const std::string& test_id) const;
  // Running and recorded tests, newest first, without per-size results
  // (every one when limit <= 0). A history error is logged and only the
  // running tests are listed.
  std::vector<ebnccl::v1::TestReport> ListTests(int limit) const;

  // Tests accepted and not yet finished.
  int RunningCount() const { return static_cast<int>(running_.size()); }

  // Routed from agent sessions.
  void OnWorkerEvent(const std::string& node, const ebnccl::v1::WorkerEvent& event);
  void OnWorkersStopped(const std::string& node, const std::string& test_id);
  // The same, with the evidence the agent collected (issue 12).
  void OnWorkersStopped(const std::string& node, const ebnccl::v1::WorkersStopped& stopped);
  void OnNodeLost(const std::string& node, const std::string& reason);

  // TestRunHost.
  void SendToNode(const std::string& node, const ebnccl::v1::CoordinatorMessage& message) override;
  void Publish(const std::string& test_id, const ebnccl::v1::RunTestEvent& event) override;
  void Finished(const std::string& test_id) override;

 private:
  struct Running {
    std::unique_ptr<TestRun> run;
    std::shared_ptr<TestObserver> observer;
  };

  absl::StatusOr<std::vector<const NodeRecord*>> SelectNodes(const ebnccl::v1::TestSpec& spec,
                                                             const std::string& reservation);
  // Starts the placed test under a new id: its TestRun, its nodes busy, its
  // rendezvous namespace open, and its first record in the history.
  std::string Launch(ebnccl::v1::TestSpec spec, TestPlacement placement,
                     std::vector<PlannedSize> sweep, std::shared_ptr<TestObserver> observer,
                     const std::string& started_by);
  std::string NewTestId();
  // Saves `report` in the history; logs a failure.
  void Record(const ebnccl::v1::TestReport& report);

  common::Clock& clock_;
  common::Executor& executor_;
  // Node name -> the holder that reserved it (Reserve).
  std::map<std::string, std::string> reserved_by_;
  NodeRegistry& registry_;
  RendezvousKv& rendezvous_;
  const CoordinatorConfig config_;
  IdGenerator id_generator_;
  FinishedCallback on_finished_;
  std::map<std::string, Running> running_;
  TestHistory& history_;
  // Runs that finished, destroyed on a later executor turn (a run cannot be
  // destroyed from inside its own callback).
  std::vector<std::unique_ptr<TestRun>> graveyard_;
};

}  // namespace eb::coordinator
