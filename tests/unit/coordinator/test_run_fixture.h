#pragma once

// Drives one TestRun on a FakeClock and a ManualExecutor, with a host that
// records every command sent to a node and every event published. The
// default test: all_reduce of float over 2 nodes x 2 ranks (NCCL, ranks on
// GPUs 0 and 1 of each node), sizes 1 KiB, 2 KiB, 4 KiB.

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/core/collective_tests/collective_test_run.h"
#include "coordinator/core/collective_tests/sweep_plan.h"
#include "ebnccl/v1/agent.pb.h"
#include "ebnccl/v1/control.pb.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/manual_executor.h"
#include "tests/unit/coordinator/coordinator_test_util.h"

namespace eb::coordinator::test {

class RecordingHost final : public TestRunHost {
 public:
  struct Sent {
    std::string node;
    ebnccl::v1::CoordinatorMessage message;
  };

  void SendToNode(const std::string& node, const ebnccl::v1::CoordinatorMessage& message) override {
    sent.push_back({node, message});
  }
  void Publish(const std::string& test_id, const ebnccl::v1::RunTestEvent& event) override {
    published_test_ids.push_back(test_id);
    events.push_back(event);
  }
  void Finished(const std::string& test_id) override { finished_test_ids.push_back(test_id); }

  // Nodes that were sent a LaunchTest, in order, with the commands.
  std::vector<std::pair<std::string, ebnccl::v1::LaunchTest>> Launches() const {
    std::vector<std::pair<std::string, ebnccl::v1::LaunchTest>> result;
    for (const Sent& s : sent) {
      if (s.message.has_launch()) result.emplace_back(s.node, s.message.launch());
    }
    return result;
  }
  // Nodes that were sent a StopTest, in order, with the commands.
  std::vector<std::pair<std::string, ebnccl::v1::StopTest>> Stops() const {
    std::vector<std::pair<std::string, ebnccl::v1::StopTest>> result;
    for (const Sent& s : sent) {
      if (s.message.has_stop()) result.emplace_back(s.node, s.message.stop());
    }
    return result;
  }
  std::vector<std::string> StopNodes() const {
    std::vector<std::string> nodes;
    for (const auto& [node, stop] : Stops()) nodes.push_back(node);
    return nodes;
  }
  // Every state_changed event, in order.
  std::vector<ebnccl::v1::TestState> StateChanges() const {
    std::vector<ebnccl::v1::TestState> states;
    for (const auto& event : events) {
      if (event.has_state_changed()) states.push_back(event.state_changed());
    }
    return states;
  }
  // Every size_result event, in order.
  std::vector<ebnccl::v1::SizeResult> Rows() const {
    std::vector<ebnccl::v1::SizeResult> rows;
    for (const auto& event : events) {
      if (event.has_size_result()) rows.push_back(event.size_result());
    }
    return rows;
  }
  int CountFinishedEvents() const {
    int count = 0;
    for (const auto& event : events) count += event.has_finished() ? 1 : 0;
    return count;
  }

  std::vector<Sent> sent;
  std::vector<ebnccl::v1::RunTestEvent> events;
  std::vector<std::string> published_test_ids;
  std::vector<std::string> finished_test_ids;
};

class TestRunFixture : public ::testing::Test {
 protected:
  static constexpr absl::Duration kTotal = absl::Minutes(10);
  static constexpr absl::Duration kLaunch = absl::Seconds(10);
  static constexpr absl::Duration kInit = absl::Seconds(20);
  static constexpr absl::Duration kStep = absl::Seconds(30);
  static constexpr absl::Duration kStop = absl::Seconds(5);
  static constexpr const char* kTestId = "t-1";

  static TestRunTimeouts DefaultTimeouts() { return {kTotal, kLaunch, kInit, kStep, kStop}; }

  static ebnccl::v1::TestSpec DefaultSpec() {
    ebnccl::v1::TestSpec spec = SmallSweepSpec();
    spec.set_data_type(ebnccl::v1::DATA_TYPE_FLOAT);
    spec.set_reduce_op(ebnccl::v1::REDUCE_OP_SUM);
    spec.set_transport(ebnccl::v1::TRANSPORT_NCCL);
    return spec;
  }

  // Creates the run (not started) on `num_nodes` nodes "node-a", "node-b"...
  // with `per_node` ranks each.
  void Create(int num_nodes = 2, int per_node = 2, ebnccl::v1::TestSpec spec = DefaultSpec(),
              TestRunTimeouts timeouts = DefaultTimeouts()) {
    std::vector<ebnccl::v1::RankAssignment> ranks;
    std::vector<ebnccl::v1::NodeInventory> inventories;
    const int world = num_nodes * per_node;
    for (int n = 0; n < num_nodes; ++n) {
      const std::string name = std::string("node-") + static_cast<char>('a' + n);
      ebnccl::v1::NodeInventory& inventory = inventories.emplace_back();
      inventory.set_hostname(name);
      inventory.set_worker_slots(per_node);
      if (edit_inventory_) edit_inventory_(n, inventory);
      for (int l = 0; l < per_node; ++l) {
        ebnccl::v1::RankAssignment& rank = ranks.emplace_back();
        rank.set_rank(n * per_node + l);
        rank.set_world_size(world);
        rank.set_node_name(name);
        rank.set_node_index(n);
        rank.set_local_rank(l);
        rank.set_device_index(l);
      }
    }
    // The sweep as the TestManager plans it.
    absl::StatusOr<std::vector<PlannedSize>> sweep = PlanSweep(spec, world);
    ASSERT_TRUE(sweep.ok()) << sweep.status();
    sizes_.clear();
    collectives_.clear();
    for (const PlannedSize& size : *sweep) {
      sizes_.push_back(size.sweep_bytes);
      collectives_.push_back(size.collective);
    }
    world_size_ = world;
    rank_nodes_.clear();
    for (const auto& rank : ranks) rank_nodes_.push_back(rank.node_name());
    run_ = std::make_unique<TestRun>(kTestId, std::move(spec), std::move(ranks), *std::move(sweep),
                                     std::move(inventories), timeouts, clock_, executor_, host_);
  }

  // Called on each node's inventory by Create, with the node's index.
  std::function<void(int, ebnccl::v1::NodeInventory&)> edit_inventory_;

  void CreateAndStart(int num_nodes = 2, int per_node = 2,
                      ebnccl::v1::TestSpec spec = DefaultSpec(),
                      TestRunTimeouts timeouts = DefaultTimeouts()) {
    Create(num_nodes, per_node, std::move(spec), timeouts);
    if (run_ != nullptr) run_->Start();
  }

  const std::string& NodeOf(int rank) const { return rank_nodes_.at(rank); }

  static ebnccl::v1::WorkerEvent Event(int rank, ebnccl::v1::WorkerEventKind kind) {
    ebnccl::v1::WorkerEvent event;
    event.set_test_id(kTestId);
    event.set_rank(rank);
    event.set_kind(kind);
    return event;
  }

  // Delivers an event for `rank` from the agent that runs it.
  void Send(int rank, ebnccl::v1::WorkerEventKind kind) {
    run_->OnWorkerEvent(NodeOf(rank), Event(rank, kind));
  }
  void Register(int rank) { Send(rank, ebnccl::v1::WORKER_EVENT_KIND_REGISTERED); }
  void Joining(int rank) { Send(rank, ebnccl::v1::WORKER_EVENT_KIND_JOINING); }
  void Join(int rank) { Send(rank, ebnccl::v1::WORKER_EVENT_KIND_JOINED); }
  void Finish(int rank) { Send(rank, ebnccl::v1::WORKER_EVENT_KIND_FINISHED); }

  // `rank` reports size number `index` of the sweep, both variants taking
  // `time_us`.
  void SizeDone(int rank, int index, double time_us = 100, int64_t wrong_out = 0,
                int64_t wrong_in = 0) {
    ebnccl::v1::WorkerEvent event = Event(rank, ebnccl::v1::WORKER_EVENT_KIND_SIZE_DONE);
    const int64_t size = sizes_.at(index);
    *event.mutable_size_result() = RankResult(size, size / 4, time_us, wrong_out, wrong_in);
    event.mutable_size_result()->set_collective(collectives_.at(index));
    run_->OnWorkerEvent(NodeOf(rank), event);
  }

  // `rank` completed `calls_done` calls of step `step`, `timed_calls` of
  // them timed in `timed_elapsed_us`; `waiting`: it waits on its peers (in a
  // call), not in its own work between calls.
  void Progress(int rank, int step, int calls_done, int timed_calls, int64_t timed_elapsed_us,
                int calls_planned = 14, bool waiting = true) {
    ebnccl::v1::WorkerEvent event = Event(rank, ebnccl::v1::WORKER_EVENT_KIND_PROGRESS);
    ebnccl::v1::IterationProgress& p = *event.mutable_progress();
    p.set_step(step);
    p.set_calls_done(calls_done);
    p.set_calls_planned(calls_planned);
    p.set_timed_calls(timed_calls);
    p.set_timed_elapsed_us(timed_elapsed_us);
    p.set_waiting_on_peers(waiting);
    run_->OnWorkerEvent(NodeOf(rank), event);
  }
  void AllRanksProgress(int step, int calls_done, int timed_calls, int64_t timed_elapsed_us) {
    for (int r = 0; r < world_size_; ++r)
      Progress(r, step, calls_done, timed_calls, timed_elapsed_us);
  }

  // `rank` failed or exited with `kind`.
  void Fail(int rank, ebnccl::v1::WorkerEventKind event_kind, ebnccl::v1::FailureKind kind,
            const std::string& message, int exit_code = 0, int signal = 0) {
    ebnccl::v1::WorkerEvent event = Event(rank, event_kind);
    event.mutable_failure()->set_kind(kind);
    event.mutable_failure()->set_message(message);
    event.mutable_failure()->set_exit_code(exit_code);
    event.mutable_failure()->set_signal(signal);
    run_->OnWorkerEvent(NodeOf(rank), event);
  }

  void RegisterAll() {
    for (int r = 0; r < world_size_; ++r) Register(r);
  }
  void JoinAll() {
    for (int r = 0; r < world_size_; ++r) Join(r);
  }
  void AllRanksDoSize(int index, double time_us = 100) {
    for (int r = 0; r < world_size_; ++r) SizeDone(r, index, time_us);
  }
  void FinishAll() {
    for (int r = 0; r < world_size_; ++r) Finish(r);
  }
  // Registers, joins, runs every size (100 us each) and finishes every rank.
  void RunWholeSweep() {
    RegisterAll();
    JoinAll();
    for (size_t i = 0; i < sizes_.size(); ++i) AllRanksDoSize(static_cast<int>(i));
    FinishAll();
  }
  // Every node's agent confirms that its workers are gone.
  void AllNodesStopped() {
    for (const std::string& node : run_->nodes()) run_->OnWorkersStopped(node);
  }

  const ebnccl::v1::TestReport& report() const { return run_->report(); }

  eb::testing::FakeClock clock_;
  eb::testing::ManualExecutor executor_{clock_};
  RecordingHost host_;
  // The steps of the sweep in order: every collective's sizes in turn.
  std::vector<int64_t> sizes_;
  std::vector<ebnccl::v1::Collective> collectives_;
  std::vector<std::string> rank_nodes_;
  int world_size_ = 0;
  std::unique_ptr<TestRun> run_;
};

}  // namespace eb::coordinator::test
