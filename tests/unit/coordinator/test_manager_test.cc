#include "coordinator/core/collective_tests/collective_test_manager.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "common/spec/limits.h"
#include "coordinator/config.h"
#include "coordinator/core/collective_tests/rendezvous_kv.h"
#include "coordinator/core/nodes/log_requests.h"
#include "coordinator/core/nodes/node_registry.h"
#include "coordinator/core/nodes/session_messages.h"
#include "coordinator/history/in_memory_history.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_agent_channel.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/manual_executor.h"
#include "tests/unit/coordinator/coordinator_test_util.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;
using eb::testing::FakeAgentChannel;
using test::IsOk;
using test::RankResult;
using test::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

// The sweep of Spec(): 1 KiB and 2 KiB.
const std::vector<int64_t> kSizes = {1024, 2048};

class RecordingObserver final : public TestObserver {
 public:
  void OnEvent(const v1::RunTestEvent& event) override { events.push_back(event); }
  std::vector<v1::RunTestEvent> events;
};

class TestManagerTest : public ::testing::Test {
 protected:
  TestManagerTest() {
    registry_.set_on_lost([this](const std::string& node, const std::string& reason) {
      manager_.OnNodeLost(node, reason);
    });
  }

  static CoordinatorConfig Config() {
    CoordinatorConfig config;
    config.heartbeat_period = absl::Seconds(2);
    config.heartbeat_miss_limit = 3;
    config.stop_timeout = absl::Seconds(5);
    return config;
  }

  // Registers an agent for `name` with `slots` worker slots; with `gpus`, it
  // offers NCCL next to Gloo.
  std::shared_ptr<FakeAgentChannel> AddNode(const std::string& name, int slots = 2, int gpus = 0) {
    v1::RegisterAgent request;
    request.set_node_name(name);
    v1::NodeInventory& inventory = *request.mutable_inventory();
    inventory.set_hostname(name);
    inventory.set_worker_slots(slots);
    inventory.add_transports(v1::TRANSPORT_GLOO);
    if (gpus > 0) {
      inventory.add_transports(v1::TRANSPORT_NCCL);
      inventory.set_nccl_version("2.28.9");
      for (int i = 0; i < gpus; ++i) inventory.add_gpus()->set_index(i);
    }
    const uint64_t session = next_session_++;
    auto channel =
        std::make_shared<FakeAgentChannel>("ipv4:10.0.0." + std::to_string(session) + ":1");
    EXPECT_THAT(registry_.Register(session, request, channel), IsOk());
    sessions_[name] = session;
    channels_[name] = channel;
    return channel;
  }

  // Registers an NCCL agent on host `host_id` owning the host's GPUs
  // `gpus` (physical indices; the bus id of GPU i is 0000:<i+0x10>:00.0).
  void AddGpuNode(const std::string& name, const std::string& host_id,
                  const std::vector<int>& gpus) {
    v1::RegisterAgent request;
    request.set_node_name(name);
    v1::NodeInventory& inventory = *request.mutable_inventory();
    inventory.set_hostname("gpu-host");
    inventory.set_host_id(host_id);
    inventory.set_worker_slots(static_cast<int>(gpus.size()));
    inventory.add_transports(v1::TRANSPORT_NCCL);
    inventory.set_nccl_version("2.28.9");
    for (int index : gpus) {
      v1::GpuInfo& gpu = *inventory.add_gpus();
      gpu.set_index(index);
      gpu.set_pci_bus_id(absl::StrFormat("0000:%02x:00.0", index + 0x10));
    }
    const uint64_t session = next_session_++;
    auto channel = std::make_shared<FakeAgentChannel>("ipv4:10.0.0.9:" + std::to_string(session));
    EXPECT_THAT(registry_.Register(session, request, channel), IsOk());
    sessions_[name] = session;
    channels_[name] = channel;
  }

  static v1::TestSpec Spec(const std::vector<std::string>& nodes) {
    v1::TestSpec spec;
    spec.set_collective(v1::COLLECTIVE_ALL_REDUCE);
    spec.set_min_bytes(kSizes.front());
    spec.set_max_bytes(kSizes.back());
    spec.set_step_factor(2);
    spec.set_iterations(5);
    for (const std::string& node : nodes) spec.add_node_names(node);
    return spec;
  }

  absl::StatusOr<std::string> Start(const v1::TestSpec& spec) {
    auto observer = std::make_shared<RecordingObserver>();
    absl::StatusOr<std::string> id = manager_.StartTest(spec, observer);
    if (id.ok()) observers_[*id] = observer;
    return id;
  }

  const RecordingObserver& ObserverOf(const std::string& test_id) {
    return *observers_.at(test_id);
  }

  v1::TestState StateOf(const std::string& test_id) {
    absl::StatusOr<v1::TestReport> report = manager_.GetTest(test_id);
    return report.ok() ? report->state() : v1::TEST_STATE_UNSPECIFIED;
  }

  const NodeRecord& Node(const std::string& name) { return *registry_.Find(name); }

  // Every rank of `test_id` registers, joins, reports each size and
  // finishes, through the agent of its node.
  void RunSweep(const std::string& test_id) {
    const v1::TestReport report = manager_.GetTest(test_id).value();
    auto send = [&](const v1::RankAssignment& rank, v1::WorkerEventKind kind,
                    std::optional<int64_t> size = std::nullopt) {
      v1::WorkerEvent event;
      event.set_test_id(test_id);
      event.set_rank(rank.rank());
      event.set_kind(kind);
      if (size) *event.mutable_size_result() = RankResult(*size, *size / 4, 100);
      manager_.OnWorkerEvent(rank.node_name(), event);
    };
    for (const auto& rank : report.ranks()) send(rank, v1::WORKER_EVENT_KIND_REGISTERED);
    for (const auto& rank : report.ranks()) send(rank, v1::WORKER_EVENT_KIND_JOINED);
    for (int64_t size : kSizes) {
      for (const auto& rank : report.ranks()) send(rank, v1::WORKER_EVENT_KIND_SIZE_DONE, size);
    }
    for (const auto& rank : report.ranks()) send(rank, v1::WORKER_EVENT_KIND_FINISHED);
  }

  // Every agent of `test_id` confirms that its workers are gone.
  void StopAll(const std::string& test_id) {
    const v1::TestReport report = manager_.GetTest(test_id).value();
    for (const std::string& node : report.spec().node_names()) {
      manager_.OnWorkersStopped(node, test_id);
    }
  }

  // Nothing of a rejected StartTest is visible: no command reached an agent,
  // no node is busy, no test or rendezvous namespace exists.
  void ExpectNothingStarted() {
    for (const auto& [name, channel] : channels_) {
      SCOPED_TRACE(name);
      EXPECT_THAT(channel->launches(), IsEmpty());
      EXPECT_NE(Node(name).state, v1::NODE_STATE_BUSY);
      EXPECT_EQ(Node(name).current_test_id, "");
    }
    EXPECT_THAT(manager_.ListTests(0), IsEmpty());
    EXPECT_THAT(rendezvous_.Set("t-1", "key", "value"),
                StatusIs(absl::StatusCode::kNotFound, ::testing::_));
  }

  eb::testing::FakeClock clock_;
  eb::testing::ManualExecutor executor_{clock_};
  const CoordinatorConfig config_ = Config();
  NodeRegistry registry_{clock_, executor_, config_, nullptr};
  RendezvousKv rendezvous_{executor_};
  int next_id_ = 1;
  InMemoryTestHistory history_;
  TestManager manager_{clock_, executor_, registry_, rendezvous_, config_, history_, [this] {
                         return "t-" + std::to_string(next_id_++);
                       }};
  uint64_t next_session_ = 1;
  std::map<std::string, uint64_t> sessions_;
  std::map<std::string, std::shared_ptr<FakeAgentChannel>> channels_;
  std::map<std::string, std::shared_ptr<RecordingObserver>> observers_;
};

TEST_F(TestManagerTest, UnknownNodeIsNotFoundAndNothingStarts) {
  AddNode("node-a");
  EXPECT_THAT(Start(Spec({"node-a", "node-x"})),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(StartsWith("node_names: "), HasSubstr("'node-x'"))));
  ExpectNothingStarted();
}

TEST_F(TestManagerTest, LostNodeIsUnavailableAndNothingStarts) {
  AddNode("node-a");
  AddNode("node-b");
  registry_.SessionClosed(sessions_["node-b"]);
  EXPECT_THAT(Start(Spec({"node-a", "node-b"})),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("'node-b' is lost")));
  ExpectNothingStarted();
  EXPECT_EQ(Node("node-a").state, v1::NODE_STATE_IDLE);
}

TEST_F(TestManagerTest, BusyNodeIsResourceExhaustedAndNothingMoreStarts) {
  AddNode("node-a");
  AddNode("node-b");
  AddNode("node-c");
  ASSERT_THAT(Start(Spec({"node-a", "node-b"})), IsOk());

  EXPECT_THAT(Start(Spec({"node-c", "node-b"})),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       AllOf(HasSubstr("'node-b' is busy"), HasSubstr("t-1"))));
  EXPECT_THAT(channels_["node-c"]->launches(), IsEmpty());
  EXPECT_THAT(channels_["node-b"]->launches(), SizeIs(1));
  EXPECT_EQ(Node("node-c").state, v1::NODE_STATE_IDLE);
  EXPECT_EQ(Node("node-b").current_test_id, "t-1");
  EXPECT_THAT(manager_.ListTests(0), SizeIs(1));
}

TEST_F(TestManagerTest, NoRegisteredAgentIsFailedPrecondition) {
  EXPECT_THAT(Start(Spec({})),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no agent is registered")));
  ExpectNothingStarted();
}

// SECURITY_FINDINGS case 11: without a node list a test took every idle
// node, fakes included (a 10,002-rank test). "Every idle node" now stops at
// kMaxNodesPerTest; beyond it the caller must name the nodes.
TEST_F(TestManagerTest, Case11EveryIdleNodeIsCapped) {
  for (int i = 0; i <= spec::kMaxNodesPerTest; ++i) AddNode(absl::StrCat("n", i), 1);
  EXPECT_THAT(Start(Spec({})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(StartsWith("node_names: none given, and 4097 nodes are idle"),
                             HasSubstr("--nodes"))));
  ExpectNothingStarted();
}

TEST_F(TestManagerTest, NoIdleNodeIsFailedPrecondition) {
  AddNode("node-a");
  ASSERT_THAT(Start(Spec({"node-a"})), IsOk());
  EXPECT_THAT(Start(Spec({})), StatusIs(absl::StatusCode::kFailedPrecondition,
                                        HasSubstr("no registered node is idle")));
  EXPECT_THAT(channels_["node-a"]->launches(), SizeIs(1));
}

TEST_F(TestManagerTest, RootRankOutsideTheWorldIsInvalidAndNothingStarts) {
  AddNode("node-a");
  AddNode("node-b");
  v1::TestSpec spec = Spec({"node-a", "node-b"});
  spec.set_collective(v1::COLLECTIVE_BROADCAST);
  spec.set_root_rank(4);
  EXPECT_THAT(Start(spec), StatusIs(absl::StatusCode::kInvalidArgument,
                                    AllOf(StartsWith("root_rank: "), HasSubstr("[0, 4)"))));
  ExpectNothingStarted();
}

TEST_F(TestManagerTest, TooManyWorkersPerNodeIsResourceExhaustedAndNothingStarts) {
  AddNode("node-a", /*slots=*/4);
  AddNode("node-b", /*slots=*/2);
  v1::TestSpec spec = Spec({"node-a", "node-b"});
  spec.set_workers_per_node(3);
  EXPECT_THAT(Start(spec), StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("node-b")));
  ExpectNothingStarted();
}

TEST_F(TestManagerTest, InvalidSpecIsRejectedBeforePlacement) {
  AddNode("node-a");
  v1::TestSpec spec = Spec({"node-a"});
  spec.set_iterations(0);
  EXPECT_THAT(Start(spec),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("iterations: ")));
  ExpectNothingStarted();
}

TEST_F(TestManagerTest, TypeTheTransportCannotRunIsRejected) {
  AddNode("node-a");
  v1::TestSpec spec = Spec({"node-a"});
  spec.set_data_type(v1::DATA_TYPE_BFLOAT16);
  EXPECT_THAT(Start(spec), StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("data_type: ")));
  ExpectNothingStarted();
}

TEST_F(TestManagerTest, GoodTestOccupiesItsNodesAndReleasesThemWhenDone) {
  AddNode("node-a");
  AddNode("node-b");
  const absl::StatusOr<std::string> id = Start(Spec({"node-a", "node-b"}));
  ASSERT_THAT(id, IsOk());
  EXPECT_EQ(*id, "t-1");

  // Nodes are busy with the test; each agent got its ranks.
  for (const char* node : {"node-a", "node-b"}) {
    SCOPED_TRACE(node);
    EXPECT_EQ(Node(node).state, v1::NODE_STATE_BUSY);
    EXPECT_EQ(Node(node).current_test_id, "t-1");
    const auto launches = channels_[node]->launches();
    ASSERT_THAT(launches, SizeIs(1));
    EXPECT_EQ(launches[0].test_id(), "t-1");
    EXPECT_EQ(launches[0].spec().transport(), v1::TRANSPORT_GLOO);
    EXPECT_EQ(launches[0].spec().workers_per_node(), 2);
    // No node list in a launch (issue 15: N launches of N names).
    EXPECT_THAT(launches[0].spec().node_names(), IsEmpty());
    ASSERT_EQ(launches[0].ranks_size(), 2);
    for (const auto& rank : launches[0].ranks()) {
      EXPECT_EQ(rank.node_name(), node);
      EXPECT_EQ(rank.device_index(), -1);
    }
  }
  ASSERT_FALSE(ObserverOf("t-1").events.empty());
  EXPECT_EQ(ObserverOf("t-1").events[0].accepted().test_id(), "t-1");
  EXPECT_EQ(StateOf("t-1"), v1::TEST_STATE_LAUNCHING);

  // The rendezvous namespace is open.
  EXPECT_THAT(rendezvous_.Set("t-1", "rank0", "10.0.0.1:5000"), IsOk());
  std::optional<absl::Status> pending_wait;
  rendezvous_.Wait(
      "t-1", {"never-set"}, absl::Hours(1),
      [&](const absl::StatusOr<std::vector<std::string>>& r) { pending_wait = r.status(); });

  RunSweep("t-1");
  EXPECT_EQ(StateOf("t-1"), v1::TEST_STATE_STOPPING);
  StopAll("t-1");
  executor_.RunUntilIdle();

  // Finished: nodes idle, namespace closed, the report kept.
  EXPECT_EQ(StateOf("t-1"), v1::TEST_STATE_PASSED);
  for (const char* node : {"node-a", "node-b"}) {
    EXPECT_EQ(Node(node).state, v1::NODE_STATE_IDLE);
    EXPECT_EQ(Node(node).current_test_id, "");
  }
  EXPECT_THAT(rendezvous_.Set("t-1", "rank1", "x"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("t-1")));
  ASSERT_TRUE(pending_wait.has_value());
  EXPECT_THAT(*pending_wait, StatusIs(absl::StatusCode::kAborted, HasSubstr("PASSED")));
  EXPECT_EQ(rendezvous_.pending_waiters(), 0u);

  const v1::RunTestEvent& last = ObserverOf("t-1").events.back();
  ASSERT_TRUE(last.has_finished());
  EXPECT_EQ(last.finished().state(), v1::TEST_STATE_PASSED);
  const absl::StatusOr<v1::TestReport> report = manager_.GetTest("t-1");
  ASSERT_THAT(report, IsOk());
  EXPECT_EQ(report->results_size(), 2);
  const std::vector<v1::TestReport> listed = manager_.ListTests(10);
  ASSERT_THAT(listed, SizeIs(1));
  EXPECT_EQ(listed[0].test_id(), "t-1");
  EXPECT_EQ(listed[0].state(), v1::TEST_STATE_PASSED);
  EXPECT_EQ(listed[0].results_size(), 0);
  EXPECT_THAT(manager_.CancelTest("t-1", "late"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("t-1")));

  // The nodes take the next test.
  const absl::StatusOr<std::string> next = Start(Spec({"node-a", "node-b"}));
  ASSERT_THAT(next, IsOk());
  EXPECT_EQ(*next, "t-2");
}

TEST_F(TestManagerTest, AutoTransportOnGpuNodesRunsNcclWithOneRankPerGpu) {
  AddNode("node-a", /*slots=*/2, /*gpus=*/2);
  AddNode("node-b", /*slots=*/2, /*gpus=*/2);
  ASSERT_THAT(Start(Spec({"node-a", "node-b"})), IsOk());
  const auto launches = channels_["node-b"]->launches();
  ASSERT_THAT(launches, SizeIs(1));
  EXPECT_EQ(launches[0].spec().transport(), v1::TRANSPORT_NCCL);
  ASSERT_EQ(launches[0].ranks_size(), 2);
  EXPECT_EQ(launches[0].ranks(0).rank(), 2);
  EXPECT_EQ(launches[0].ranks(0).device_index(), 0);
  EXPECT_EQ(launches[0].ranks(1).rank(), 3);
  EXPECT_EQ(launches[0].ranks(1).device_index(), 1);
  EXPECT_EQ(manager_.GetTest("t-1")->transport(), v1::TRANSPORT_NCCL);
}

TEST_F(TestManagerTest, NcclRanksCarryTheirGpusBusId) {
  AddGpuNode("node-a", "boot_id:host-1", {4, 5});
  ASSERT_THAT(Start(Spec({"node-a"})), IsOk());
  const auto launches = channels_["node-a"]->launches();
  ASSERT_THAT(launches, SizeIs(1));
  ASSERT_EQ(launches[0].ranks_size(), 2);
  EXPECT_EQ(launches[0].ranks(0).device_index(), 4);
  EXPECT_EQ(launches[0].ranks(0).gpu_pci_bus_id(), "0000:14:00.0");
  EXPECT_EQ(launches[0].ranks(1).device_index(), 5);
  EXPECT_EQ(launches[0].ranks(1).gpu_pci_bus_id(), "0000:15:00.0");
}

TEST_F(TestManagerTest, AgentsSplittingOneHostsGpusRunTogether) {
  AddGpuNode("half-a", "boot_id:host-1", {0, 1});
  AddGpuNode("half-b", "boot_id:host-1", {2, 3});
  ASSERT_THAT(Start(Spec({"half-a", "half-b"})), IsOk());
  EXPECT_THAT(channels_["half-b"]->launches(), SizeIs(1));
}

TEST_F(TestManagerTest, TwoNodesOfOneHostOnTheSameGpuAreRefusedBeforeAnythingStarts) {
  // Both agents were started without --gpus (or with overlapping lists).
  AddGpuNode("half-a", "boot_id:host-1", {0, 1});
  AddGpuNode("half-b", "boot_id:host-1", {1, 2});
  EXPECT_THAT(Start(Spec({"half-a", "half-b"})),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       AllOf(HasSubstr("nodes half-a and half-b run on one host"),
                             HasSubstr("0000:11:00.0"), HasSubstr("disjoint --gpus"))));
  EXPECT_THAT(channels_["half-a"]->launches(), IsEmpty());
  EXPECT_THAT(channels_["half-b"]->launches(), IsEmpty());
  EXPECT_EQ(Node("half-a").state, v1::NODE_STATE_IDLE);
  EXPECT_EQ(Node("half-b").state, v1::NODE_STATE_IDLE);
  EXPECT_THAT(manager_.ListTests(10), IsEmpty());
  // One rank per node uses GPUs 0 and 1: no overlap, so it runs.
  v1::TestSpec one = Spec({"half-a", "half-b"});
  one.set_workers_per_node(1);
  EXPECT_THAT(Start(one), IsOk());
}

TEST_F(TestManagerTest, EqualBusIdsOnDifferentHostsAreDifferentGpus) {
  AddGpuNode("node-a", "boot_id:host-1", {0, 1});
  AddGpuNode("node-b", "boot_id:host-2", {0, 1});
  EXPECT_THAT(Start(Spec({"node-a", "node-b"})), IsOk());
}

TEST_F(TestManagerTest, EmptyNodeListUsesEveryIdleNode) {
  AddNode("node-c");
  AddNode("node-a");
  AddNode("node-b");
  ASSERT_THAT(Start(Spec({"node-b"})), IsOk());
  ASSERT_THAT(Start(Spec({})), IsOk());
  const absl::StatusOr<v1::TestReport> report = manager_.GetTest("t-2");
  ASSERT_THAT(report, IsOk());
  EXPECT_THAT(report->spec().node_names(), ElementsAre("node-a", "node-c"));
  EXPECT_EQ(Node("node-a").current_test_id, "t-2");
  EXPECT_EQ(Node("node-c").current_test_id, "t-2");
  EXPECT_EQ(Node("node-b").current_test_id, "t-1");
}

TEST_F(TestManagerTest, LostNodeFailsTheRunningTest) {
  AddNode("node-a");
  auto channel_b = AddNode("node-b");
  ASSERT_THAT(Start(Spec({"node-a", "node-b"})), IsOk());

  registry_.SessionClosed(sessions_["node-b"]);
  EXPECT_TRUE(channel_b->closed());
  EXPECT_EQ(StateOf("t-1"), v1::TEST_STATE_STOPPING);
  const auto stops = channels_["node-a"]->stops();
  ASSERT_THAT(stops, SizeIs(1));
  EXPECT_EQ(stops[0].test_id(), "t-1");

  manager_.OnWorkersStopped("node-a", "t-1");
  const absl::StatusOr<v1::TestReport> report = manager_.GetTest("t-1");
  ASSERT_THAT(report, IsOk());
  EXPECT_EQ(report->state(), v1::TEST_STATE_FAILED);
  ASSERT_GE(report->failures_size(), 1);
  EXPECT_EQ(report->failures(0).kind(), v1::FAILURE_KIND_NODE_LOST);
  EXPECT_EQ(report->failures(0).node_name(), "node-b");
  EXPECT_THAT(report->failures(0).message(), HasSubstr("agent disconnected"));
  EXPECT_EQ(Node("node-a").state, v1::NODE_STATE_IDLE);
  EXPECT_EQ(Node("node-b").state, v1::NODE_STATE_LOST);
  EXPECT_EQ(ObserverOf("t-1").events.back().finished().state(), v1::TEST_STATE_FAILED);
}

TEST_F(TestManagerTest, MissedHeartbeatsFailTheRunningTest) {
  AddNode("node-a");
  AddNode("node-b");
  registry_.Start();
  ASSERT_THAT(Start(Spec({"node-a", "node-b"})), IsOk());
  // node-a keeps heartbeating, node-b goes silent.
  for (int i = 0; i < 4; ++i) {
    executor_.AdvanceTime(config_.heartbeat_period);
    ASSERT_THAT(registry_.Heartbeat(sessions_["node-a"]), IsOk());
  }
  EXPECT_EQ(Node("node-b").state, v1::NODE_STATE_LOST);
  EXPECT_EQ(StateOf("t-1"), v1::TEST_STATE_STOPPING);
  manager_.OnWorkersStopped("node-a", "t-1");
  const absl::StatusOr<v1::TestReport> report = manager_.GetTest("t-1");
  ASSERT_THAT(report, IsOk());
  EXPECT_EQ(report->state(), v1::TEST_STATE_FAILED);
  EXPECT_EQ(report->failures(0).kind(), v1::FAILURE_KIND_NODE_LOST);
  EXPECT_THAT(report->failures(0).message(), HasSubstr("missed 3 heartbeats"));
}

TEST_F(TestManagerTest, CancelTestStopsTheTestAndFreesItsNodes) {
  AddNode("node-a");
  AddNode("node-b");
  ASSERT_THAT(Start(Spec({"node-a", "node-b"})), IsOk());
  EXPECT_THAT(manager_.CancelTest("t-1", "cancelled by ebctl"), IsOk());
  for (const char* node : {"node-a", "node-b"}) {
    const auto stops = channels_[node]->stops();
    ASSERT_THAT(stops, SizeIs(1));
    EXPECT_THAT(stops[0].reason(), HasSubstr("cancelled by ebctl"));
  }
  StopAll("t-1");
  EXPECT_EQ(StateOf("t-1"), v1::TEST_STATE_CANCELLED);
  EXPECT_EQ(Node("node-a").state, v1::NODE_STATE_IDLE);
  EXPECT_EQ(Node("node-b").state, v1::NODE_STATE_IDLE);
}

TEST_F(TestManagerTest, InterruptAllEndsRunningTestsWithoutBlamingTheirNodes) {
  AddNode("node-a");
  AddNode("node-b");
  ASSERT_THAT(Start(Spec({"node-a", "node-b"})), IsOk());
  manager_.InterruptAll("the coordinator was stopped");

  // Final at once (the process is exiting), recorded, sent to the client.
  absl::StatusOr<v1::TestReport> recorded = history_.Get("t-1");
  ASSERT_THAT(recorded, IsOk());
  EXPECT_EQ(recorded->state(), v1::TEST_STATE_INTERRUPTED);
  ASSERT_THAT(recorded->failures(), SizeIs(1));
  EXPECT_EQ(recorded->failures(0).kind(), v1::FAILURE_KIND_INTERRUPTED);
  EXPECT_EQ(recorded->failures(0).node_name(), "");
  EXPECT_EQ(recorded->summary(), "interrupted: the coordinator was stopped");
  EXPECT_EQ(ObserverOf("t-1").events.back().finished().state(), v1::TEST_STATE_INTERRUPTED);
  // The agents are told to stop the workers.
  for (const char* node : {"node-a", "node-b"}) {
    SCOPED_TRACE(node);
    ASSERT_THAT(channels_[node]->stops(), SizeIs(1));
    EXPECT_THAT(channels_[node]->stops()[0].reason(), HasSubstr("interrupted"));
  }
  // The streams closing afterwards do not rewrite the verdict.
  registry_.SessionClosed(sessions_["node-a"]);
  registry_.SessionClosed(sessions_["node-b"]);
  executor_.AdvanceTime(absl::Minutes(1));
  EXPECT_EQ(history_.Get("t-1")->state(), v1::TEST_STATE_INTERRUPTED);
  EXPECT_THAT(history_.Get("t-1")->failures(), SizeIs(1));
}

TEST_F(TestManagerTest, CancelOrGetOfAnUnknownTestIsNotFound) {
  EXPECT_THAT(manager_.CancelTest("t-404", "why"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("t-404")));
  EXPECT_THAT(manager_.GetTest("t-404"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("t-404")));
}

TEST_F(TestManagerTest, ListTestsIsNewestFirst) {
  AddNode("node-a");
  AddNode("node-b");
  ASSERT_THAT(Start(Spec({"node-a"})), IsOk());
  executor_.AdvanceTime(absl::Seconds(1));
  ASSERT_THAT(Start(Spec({"node-b"})), IsOk());
  std::vector<std::string> ids;
  for (const v1::TestReport& report : manager_.ListTests(0)) ids.push_back(report.test_id());
  EXPECT_THAT(ids, ElementsAre("t-2", "t-1"));
  ASSERT_THAT(manager_.ListTests(1), SizeIs(1));
  EXPECT_EQ(manager_.ListTests(1)[0].test_id(), "t-2");
}

TEST_F(TestManagerTest, TestsAreRecordedInTheHistoryAtStartAndAtTheEnd) {
  AddNode("node-a");
  AddNode("node-b");
  ASSERT_THAT(Start(Spec({"node-a", "node-b"})), IsOk());
  // Recorded as it starts (a coordinator dying now leaves a trace).
  absl::StatusOr<v1::TestReport> recorded = history_.Get("t-1");
  ASSERT_THAT(recorded, IsOk());
  EXPECT_EQ(recorded->state(), v1::TEST_STATE_LAUNCHING);
  EXPECT_THAT(recorded->ranks(), SizeIs(4));
  // Listed once, with its live state.
  RunSweep("t-1");
  ASSERT_THAT(manager_.ListTests(0), SizeIs(1));
  EXPECT_EQ(manager_.ListTests(0)[0].state(), v1::TEST_STATE_STOPPING);

  StopAll("t-1");
  recorded = history_.Get("t-1");
  ASSERT_THAT(recorded, IsOk());
  EXPECT_EQ(recorded->state(), v1::TEST_STATE_PASSED);
  EXPECT_EQ(recorded->results_size(), 2);
  EXPECT_EQ(manager_.GetTest("t-1")->state(), v1::TEST_STATE_PASSED);
}

TEST_F(TestManagerTest, TestsOfAPreviousCoordinatorAreServedFromTheHistory) {
  v1::TestReport old;
  old.set_test_id("t-old");
  old.set_state(v1::TEST_STATE_RUNNING);
  old.set_start_time_unix_ms(absl::ToUnixMillis(clock_.Now()) - 60000);
  ASSERT_THAT(history_.Save(old), IsOk());
  ASSERT_THAT(history_.MarkInterrupted("restart", absl::ToUnixMillis(clock_.Now())), IsOk());
  AddNode("node-a");
  ASSERT_THAT(Start(Spec({"node-a"})), IsOk());

  EXPECT_EQ(StateOf("t-old"), v1::TEST_STATE_INTERRUPTED);
  std::vector<std::string> ids;
  for (const v1::TestReport& report : manager_.ListTests(0)) ids.push_back(report.test_id());
  EXPECT_THAT(ids, ElementsAre("t-1", "t-old"));
  EXPECT_THAT(manager_.CancelTest("t-old", "why"),
              StatusIs(absl::StatusCode::kNotFound, ::testing::_));
}

TEST_F(TestManagerTest, EventsForUnknownTestsAreIgnored) {
  AddNode("node-a");
  ASSERT_THAT(Start(Spec({"node-a"})), IsOk());
  v1::WorkerEvent event;
  event.set_test_id("t-other");
  event.set_rank(0);
  event.set_kind(v1::WORKER_EVENT_KIND_EXITED);
  manager_.OnWorkerEvent("node-a", event);
  manager_.OnWorkersStopped("node-a", "t-other");
  EXPECT_EQ(StateOf("t-1"), v1::TEST_STATE_LAUNCHING);
  EXPECT_THAT(channels_["node-a"]->stops(), IsEmpty());
}

}  // namespace
}  // namespace eb::coordinator

namespace eb::coordinator {
namespace {

// Issue 15: an agent sends its ranks' events of one phase as one
// WorkerEventBatch; the coordinator handles each as if it had come alone,
// in order, and a whole test passes on batches.
TEST_F(TestManagerTest, WorkerEventBatchesRunATestToItsVerdict) {
  AddNode("node-a");
  AddNode("node-b");
  ASSERT_THAT(Start(Spec({"node-a", "node-b"})), IsOk());
  LogRequests logs(executor_, absl::Seconds(10));
  const SessionMessageTargets targets{registry_, manager_, logs};
  const v1::TestReport report = manager_.GetTest("t-1").value();
  // One batch per node and phase, as the agent's session writer sends them.
  auto send_phase = [&](v1::WorkerEventKind kind, std::optional<int64_t> size = std::nullopt) {
    for (const char* node : {"node-a", "node-b"}) {
      v1::AgentMessage message;
      for (const auto& rank : report.ranks()) {
        if (rank.node_name() != node) continue;
        v1::WorkerEvent& event = *message.mutable_worker_events()->add_events();
        event.set_test_id("t-1");
        event.set_rank(rank.rank());
        event.set_kind(kind);
        if (size) *event.mutable_size_result() = RankResult(*size, *size / 4, 100);
      }
      ASSERT_EQ(message.worker_events().events_size(), 2);
      EXPECT_THAT(HandleSessionMessage(targets, sessions_[node], node, message), IsOk());
    }
  };
  send_phase(v1::WORKER_EVENT_KIND_REGISTERED);
  send_phase(v1::WORKER_EVENT_KIND_JOINED);
  EXPECT_EQ(StateOf("t-1"), v1::TEST_STATE_RUNNING);
  for (int64_t size : kSizes) send_phase(v1::WORKER_EVENT_KIND_SIZE_DONE, size);
  send_phase(v1::WORKER_EVENT_KIND_FINISHED);
  for (const char* node : {"node-a", "node-b"}) {
    v1::AgentMessage stopped;
    stopped.mutable_workers_stopped()->set_test_id("t-1");
    EXPECT_THAT(HandleSessionMessage(targets, sessions_[node], node, stopped), IsOk());
  }
  executor_.RunUntilIdle();
  EXPECT_EQ(StateOf("t-1"), v1::TEST_STATE_PASSED);
  EXPECT_EQ(manager_.GetTest("t-1")->results_size(), 2);
}

// A batch over the bound ends the session before any of its events counts.
TEST_F(TestManagerTest, AnOversizedWorkerEventBatchIsRefusedWhole) {
  AddNode("node-a");
  ASSERT_THAT(Start(Spec({"node-a"})), IsOk());
  LogRequests logs(executor_, absl::Seconds(10));
  v1::AgentMessage message;
  for (int i = 0; i <= spec::kMaxWorkerEventsPerBatch; ++i) {
    v1::WorkerEvent& event = *message.mutable_worker_events()->add_events();
    event.set_test_id("t-1");
    event.set_rank(i % 2);
    event.set_kind(i < 2 ? v1::WORKER_EVENT_KIND_REGISTERED : v1::WORKER_EVENT_KIND_JOINED);
  }
  EXPECT_THAT(
      HandleSessionMessage({registry_, manager_, logs}, sessions_["node-a"], "node-a", message),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(StartsWith("worker_events.events: 1025 events"), HasSubstr("at most 1024"))));
  // None was handled: had its first events counted, both ranks would have
  // joined (RUNNING) or repeated themselves (FAILED).
  EXPECT_EQ(StateOf("t-1"), v1::TEST_STATE_LAUNCHING);
}

}  // namespace
}  // namespace eb::coordinator
