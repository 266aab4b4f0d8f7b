// The ValidationManager over the real TestManager, with fake agents: every
// test of a round is driven through the agents' events (registered, joined,
// one row per size, finished, workers stopped), at a rank time chosen per
// test, so that a node can be made slow or lost.

#include "coordinator/core/validation_manager.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/spec/wire_names.h"
#include "coordinator/config.h"
#include "coordinator/core/collective_tests/collective_test_manager.h"
#include "coordinator/core/collective_tests/rendezvous_kv.h"
#include "coordinator/core/nodes/node_registry.h"
#include "coordinator/history/in_memory_history.h"
#include "coordinator/history/in_memory_validation_history.h"
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
using test::StatusIs;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

class RecordingValidationObserver final : public ValidationObserver {
 public:
  void OnEvent(const v1::ValidationEvent& event) override { events.push_back(event); }
  std::vector<v1::ValidationEvent> events;
};

// Rank time of one test, microseconds, from its node names.
using TimeOf = std::function<double(const std::vector<std::string>& nodes)>;

class ValidationManagerTest : public ::testing::Test {
 protected:
  ValidationManagerTest() {
    registry_.set_on_lost([this](const std::string& node, const std::string& reason) {
      tests_.OnNodeLost(node, reason);
    });
  }

  void AddNode(const std::string& name) {
    v1::RegisterAgent request;
    request.set_node_name(name);
    request.mutable_inventory()->set_hostname(name);
    request.mutable_inventory()->set_worker_slots(2);
    request.mutable_inventory()->add_transports(v1::TRANSPORT_GLOO);
    const uint64_t session = next_session_++;
    auto channel = std::make_shared<FakeAgentChannel>("ipv4:10.0.0." + std::to_string(session));
    ASSERT_THAT(registry_.Register(session, request, channel), IsOk());
    sessions_[name] = session;
    channels_[name] = channel;
  }

  static v1::ValidationSpec Spec(const std::vector<std::string>& nodes) {
    v1::ValidationSpec spec;
    for (const std::string& node : nodes) spec.add_node_names(node);
    spec.set_min_bytes(1024);
    spec.set_max_bytes(2048);
    spec.set_step_factor(2);
    spec.set_iterations(5);
    return spec;
  }

  absl::StatusOr<std::string> Start(const v1::ValidationSpec& spec) {
    observer_ = std::make_shared<RecordingValidationObserver>();
    return validations_.Start(spec, observer_);
  }

  // Tests accepted and not yet finished.
  std::vector<v1::TestReport> RunningTests() {
    std::vector<v1::TestReport> out;
    for (const v1::TestReport& listed : tests_.ListTests(0)) {
      if (listed.state() <= v1::TEST_STATE_STOPPING)
        out.push_back(*tests_.GetTest(listed.test_id()));
    }
    return out;
  }

  // Every rank of `report` registers, joins, reports each size at `time_us`
  // and finishes; then its agents confirm the workers are gone.
  void Complete(const v1::TestReport& report, double time_us) {
    const std::string& id = report.test_id();
    auto send = [&](const v1::RankAssignment& rank, v1::WorkerEventKind kind, int64_t size = -1) {
      v1::WorkerEvent event;
      event.set_test_id(id);
      event.set_rank(rank.rank());
      event.set_kind(kind);
      if (size >= 0) *event.mutable_size_result() = test::RankResult(size, size / 4, time_us);
      tests_.OnWorkerEvent(rank.node_name(), event);
    };
    for (const auto& rank : report.ranks()) send(rank, v1::WORKER_EVENT_KIND_REGISTERED);
    for (const auto& rank : report.ranks()) send(rank, v1::WORKER_EVENT_KIND_JOINED);
    for (int64_t size : {1024, 2048}) {
      for (const auto& rank : report.ranks()) send(rank, v1::WORKER_EVENT_KIND_SIZE_DONE, size);
    }
    for (const auto& rank : report.ranks()) send(rank, v1::WORKER_EVENT_KIND_FINISHED);
    for (const std::string& node : report.spec().node_names()) tests_.OnWorkersStopped(node, id);
  }

  // Runs rounds until the validation `id` is over (at most 20 rounds).
  void RunToEnd(const std::string& id, const TimeOf& time_of) {
    for (int round = 0; round < 20 && validations_.RunningCount() > 0; ++round) {
      for (const v1::TestReport& report : RunningTests()) {
        Complete(report,
                 time_of({report.spec().node_names().begin(), report.spec().node_names().end()}));
      }
      executor_.RunUntilIdle();
    }
    ASSERT_EQ(validations_.Get(id)->state() == v1::VALIDATION_STATE_RUNNING, false);
  }

  std::string VerdictOf(const v1::ValidationReport& report, const std::string& node) {
    for (const v1::NodeVerdict& n : report.nodes()) {
      if (n.node_name() == node) {
        return spec::WireName(n.verdict()) + "/" + spec::WireName(n.confidence());
      }
    }
    return "missing";
  }

  static CoordinatorConfig Config() {
    CoordinatorConfig config;
    config.stop_timeout = absl::Seconds(5);
    return config;
  }

  eb::testing::FakeClock clock_;
  eb::testing::ManualExecutor executor_{clock_};
  const CoordinatorConfig config_ = Config();
  NodeRegistry registry_{clock_, executor_, config_, nullptr};
  RendezvousKv rendezvous_{executor_};
  InMemoryTestHistory test_history_;
  int next_test_ = 1;
  TestManager tests_{clock_, executor_, registry_, rendezvous_, config_, test_history_, [this] {
                       return "t-" + std::to_string(next_test_++);
                     }};
  InMemoryValidationHistory history_;
  int next_validation_ = 1;
  ValidationManager validations_{
      clock_, executor_, registry_, tests_, history_, ValidationManagerConfig{}, [this] {
        return "v-" + std::to_string(next_validation_++);
      }};
  uint64_t next_session_ = 1;
  std::map<std::string, uint64_t> sessions_;
  std::map<std::string, std::shared_ptr<FakeAgentChannel>> channels_;
  std::shared_ptr<RecordingValidationObserver> observer_;
};

const std::vector<std::string> kFour = {"a", "b", "c", "d"};

TEST_F(ValidationManagerTest, HealthyFleetIsHealthyAndRecorded) {
  for (const std::string& node : kFour) AddNode(node);
  absl::StatusOr<std::string> id = Start(Spec({}));
  ASSERT_THAT(id, IsOk());
  EXPECT_EQ(*id, "v-1");
  // Round 1 is intra: one test per node, all at once.
  EXPECT_EQ(RunningTests().size(), 4u);
  RunToEnd(*id, [](const auto&) { return 100.0; });

  const v1::ValidationReport report = validations_.Get(*id).value();
  EXPECT_EQ(report.state(), v1::VALIDATION_STATE_DONE);
  EXPECT_FALSE(report.any_bad());
  for (const std::string& node : kFour) EXPECT_EQ(VerdictOf(report, node), "healthy/confirmed");
  ASSERT_GE(report.rounds_size(), 2);
  EXPECT_EQ(report.rounds(0).kind(), v1::TEST_KIND_INTRA);
  EXPECT_EQ(report.rounds(1).kind(), v1::TEST_KIND_PAIR);
  for (const v1::ValidationRound& round : report.rounds()) {
    for (const v1::ValidationTest& t : round.tests()) {
      EXPECT_THAT(t.test_id(), Not(IsEmpty()));
      EXPECT_EQ(t.outcome(), v1::OUTCOME_COMPLETED);
      EXPECT_GT(t.busbw_gbps(), 0);
    }
  }
  // The stream: accepted first, finished last; the history has it.
  ASSERT_FALSE(observer_->events.empty());
  EXPECT_TRUE(observer_->events.front().has_accepted());
  EXPECT_TRUE(observer_->events.back().has_finished());
  EXPECT_EQ(history_.Get(*id)->state(), v1::VALIDATION_STATE_DONE);
  EXPECT_EQ(history_.LastVerdicts()->size(), 4u);
  for (const std::string& node : kFour) EXPECT_EQ(registry_.Find(node)->state, v1::NODE_STATE_IDLE);
}

TEST_F(ValidationManagerTest, SlowNodeIsDegradedAndOthersHealthy) {
  for (const std::string& node : kFour) AddNode(node);
  absl::StatusOr<std::string> id = Start(Spec({}));
  ASSERT_THAT(id, IsOk());
  // Every test with c takes 5 times as long: far below a 10% tolerance.
  RunToEnd(*id, [](const std::vector<std::string>& nodes) {
    for (const std::string& n : nodes) {
      if (n == "c") return 500.0;
    }
    return 100.0;
  });
  const v1::ValidationReport report = validations_.Get(*id).value();
  EXPECT_EQ(report.state(), v1::VALIDATION_STATE_DONE);
  EXPECT_TRUE(report.any_bad());
  EXPECT_EQ(VerdictOf(report, "c"), "degraded/confirmed");
  for (const char* node : {"a", "b", "d"}) EXPECT_EQ(VerdictOf(report, node), "healthy/confirmed");
  EXPECT_THAT(report.summary(), HasSubstr("degraded (c)"));
  EXPECT_EQ(history_.LastVerdicts()->at(2).bad_count, 1);
}

TEST_F(ValidationManagerTest, NodeLostMidValidationIsUntestableNeverDegraded) {
  for (const std::string& node : kFour) AddNode(node);
  absl::StatusOr<std::string> id = Start(Spec({}));
  ASSERT_THAT(id, IsOk());
  registry_.SessionClosed(sessions_["d"]);  // d's agent dies during intra
  executor_.RunUntilIdle();
  RunToEnd(*id, [](const auto&) { return 100.0; });
  const v1::ValidationReport report = validations_.Get(*id).value();
  EXPECT_EQ(report.state(), v1::VALIDATION_STATE_DONE);
  EXPECT_EQ(VerdictOf(report, "d").substr(0, 10), "untestable");
  for (const char* node : {"a", "b", "c"}) EXPECT_EQ(VerdictOf(report, node), "healthy/confirmed");
}

TEST_F(ValidationManagerTest, CancelStopsRunningTestsAndSaysCancelled) {
  for (const std::string& node : kFour) AddNode(node);
  absl::StatusOr<std::string> id = Start(Spec({}));
  ASSERT_THAT(id, IsOk());
  ASSERT_THAT(validations_.Cancel(*id, "user interrupt"), IsOk());
  // The tests are cancelled; once their agents confirm, the validation ends.
  for (const v1::TestReport& report : RunningTests()) {
    for (const std::string& node : report.spec().node_names()) {
      tests_.OnWorkersStopped(node, report.test_id());
    }
  }
  executor_.RunUntilIdle();
  const v1::ValidationReport report = validations_.Get(*id).value();
  EXPECT_EQ(report.state(), v1::VALIDATION_STATE_CANCELLED);
  EXPECT_THAT(report.summary(), HasSubstr("user interrupt"));
  // A cancelled test says nothing about its nodes.
  EXPECT_FALSE(report.any_bad());
  EXPECT_EQ(validations_.RunningCount(), 0);
  EXPECT_THAT(validations_.Cancel(*id, "again"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(*id)));
}

// A sentinel probe whose nodes the scheduler took back (issue 30): its
// tests are cancelled at once, it ends PREEMPTED, and none of its node
// verdicts is evidence (history's last verdicts stay empty).
TEST_F(ValidationManagerTest, PreemptCancelsTestsAndRecordsNoVerdictEvidence) {
  for (const char* node : {"a", "b"}) AddNode(node);
  absl::StatusOr<std::string> id = Start(Spec({"a", "b"}));
  ASSERT_THAT(id, IsOk());
  ASSERT_FALSE(RunningTests().empty());
  ASSERT_THAT(validations_.Preempt(*id, "slurm took the nodes back"), IsOk());
  for (const v1::TestReport& report : RunningTests()) {
    EXPECT_EQ(report.state(), v1::TEST_STATE_STOPPING) << report.test_id();
    for (const std::string& node : report.spec().node_names()) {
      tests_.OnWorkersStopped(node, report.test_id());
    }
  }
  executor_.RunUntilIdle();
  const v1::ValidationReport report = validations_.Get(*id).value();
  EXPECT_EQ(report.state(), v1::VALIDATION_STATE_PREEMPTED);
  EXPECT_THAT(report.summary(), HasSubstr("preempted: slurm took the nodes back"));
  EXPECT_FALSE(report.any_bad());
  EXPECT_EQ(history_.Get(*id)->state(), v1::VALIDATION_STATE_PREEMPTED);
  EXPECT_TRUE(history_.LastVerdicts()->empty());
  EXPECT_EQ(validations_.RunningCount(), 0);
  for (const char* node : {"a", "b"}) EXPECT_EQ(registry_.Find(node)->state, v1::NODE_STATE_IDLE);
}

// Without -b/-e (max_bytes 0) the tests run at the plateau (issue 29, item
// 3): on a Gloo fleet the intra round sweeps Gloo's range, 256K to 64M,
// with 20 calls (16 would move 1 GiB at 64M).
TEST_F(ValidationManagerTest, WithoutSizesAGlooFleetSweepsGloosPlateauRange) {
  for (const std::string& node : kFour) AddNode(node);
  v1::ValidationSpec spec;
  absl::StatusOr<std::string> id = Start(spec);
  ASSERT_THAT(id, IsOk());
  const std::vector<v1::TestReport> intra = RunningTests();
  ASSERT_EQ(intra.size(), 4u);
  for (const v1::TestReport& test : intra) {
    EXPECT_EQ(test.spec().min_bytes(), int64_t{256} << 10);
    EXPECT_EQ(test.spec().max_bytes(), int64_t{64} << 20);
    EXPECT_EQ(test.spec().iterations(), 20);
  }
  ASSERT_THAT(validations_.Cancel(*id, "enough"), IsOk());
  for (const v1::TestReport& report : RunningTests()) {
    for (const std::string& node : report.spec().node_names()) {
      tests_.OnWorkersStopped(node, report.test_id());
    }
  }
  executor_.RunUntilIdle();
}

TEST_F(ValidationManagerTest, DeadlineEndsItTimedOut) {
  for (const std::string& node : kFour) AddNode(node);
  v1::ValidationSpec spec = Spec({});
  // Shorter than the tests' launch deadline (30 s): the round is still
  // running when the validation's deadline passes.
  spec.set_timeout_ms(10'000);
  absl::StatusOr<std::string> id = Start(spec);
  ASSERT_THAT(id, IsOk());
  executor_.AdvanceTime(absl::Seconds(10));
  EXPECT_EQ(validations_.Get(*id)->state(), v1::VALIDATION_STATE_RUNNING);
  for (const v1::TestReport& report : RunningTests()) {
    for (const std::string& node : report.spec().node_names()) {
      tests_.OnWorkersStopped(node, report.test_id());
    }
  }
  executor_.RunUntilIdle();
  const v1::ValidationReport report = validations_.Get(*id).value();
  EXPECT_EQ(report.state(), v1::VALIDATION_STATE_TIMED_OUT);
  EXPECT_THAT(report.summary(), HasSubstr("deadline"));
}

TEST_F(ValidationManagerTest, OverlappingValidationIsRefusedDisjointOneRuns) {
  for (const std::string& node : kFour) AddNode(node);
  ASSERT_THAT(Start(Spec({"a", "b"})), IsOk());
  EXPECT_THAT(Start(Spec({"b", "c"})), StatusIs(absl::StatusCode::kResourceExhausted,
                                                HasSubstr("'b' is in validation v-1")));
  EXPECT_THAT(Start(Spec({"c", "d"})), IsOk());
  EXPECT_EQ(validations_.RunningCount(), 2);
  EXPECT_EQ(validations_.List(0).size(), 2u);
}

TEST_F(ValidationManagerTest, ItsNodesAreReservedBetweenRoundsAndFreedAtTheEnd) {
  for (const std::string& node : kFour) AddNode(node);
  AddNode("e");
  absl::StatusOr<std::string> id = Start(Spec({"a", "b", "c", "d"}));
  ASSERT_THAT(id, IsOk());
  // Round 1 ends; round 2 is not planned yet: a, b, c, d are idle.
  for (const v1::TestReport& report : RunningTests()) Complete(report, 100.0);
  ASSERT_EQ(registry_.Find("a")->state, v1::NODE_STATE_IDLE);
  v1::TestSpec any = test::SmallSweepSpec();
  any.set_max_bytes(2048);  // the sizes Complete() reports
  v1::TestSpec on_a = any;
  on_a.add_node_names("a");
  EXPECT_THAT(tests_.StartTest(on_a, nullptr), StatusIs(absl::StatusCode::kResourceExhausted,
                                                        HasSubstr("reserved by validation v-1")));
  // "Every idle node" leaves the validation's nodes out.
  absl::StatusOr<std::string> anywhere = tests_.StartTest(any, nullptr);
  ASSERT_THAT(anywhere, IsOk());
  EXPECT_THAT(tests_.GetTest(*anywhere)->spec().node_names(), ElementsAre("e"));
  Complete(*tests_.GetTest(*anywhere), 100.0);
  executor_.RunUntilIdle();
  RunToEnd(*id, [](const auto&) { return 100.0; });
  EXPECT_THAT(tests_.StartTest(on_a, nullptr), IsOk());
}

// Issue 30: nodes the scheduler holds (a job, an operator's drain) are left
// out of the plan, listed in the report, and never tested.
TEST_F(ValidationManagerTest, NodesTheSchedulerHoldsAreLeftOutAndReported) {
  for (const std::string& node : kFour) AddNode(node);
  AddNode("e");
  std::vector<std::string> finished;
  validations_.set_on_finished([&finished](const v1::ValidationReport& report) {
    finished.push_back(report.validation_id());
  });
  observer_ = std::make_shared<RecordingValidationObserver>();
  absl::StatusOr<std::string> id = validations_.Start(
      Spec({"a", "b", "c", "d"}), observer_, "",
      {{"b", "slurm: holds a job (allocated)"}, {"d", "slurm: drained by an operator: fan"}});
  ASSERT_THAT(id, IsOk());
  RunToEnd(*id, [](const auto&) { return 100.0; });
  const v1::ValidationReport report = validations_.Get(*id).value();
  EXPECT_THAT(report.spec().node_names(), ElementsAre("a", "c"));
  ASSERT_EQ(report.skipped_size(), 2);
  EXPECT_EQ(report.skipped(0).node_name(), "b");
  EXPECT_EQ(report.skipped(0).reason(), "slurm: holds a job (allocated)");
  EXPECT_EQ(VerdictOf(report, "b"), "missing");
  for (const v1::ValidationRound& round : report.rounds()) {
    for (const v1::ValidationTest& t : round.tests()) {
      EXPECT_THAT(t.node_names(), Not(Contains("b")));
      EXPECT_THAT(t.node_names(), Not(Contains("d")));
    }
  }
  EXPECT_THAT(finished, ElementsAre(*id));
  // Every idle node: the held ones are left out too; all held: refused.
  EXPECT_THAT(validations_.Start(Spec({"b"}), observer_, "", {{"b", "slurm: holds a job"}}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("held by the scheduler")));
}

TEST_F(ValidationManagerTest, InputErrorsNameTheField) {
  AddNode("a");
  EXPECT_THAT(Start(Spec({"x"})), StatusIs(absl::StatusCode::kNotFound, HasSubstr("'x'")));
  v1::ValidationSpec spec = Spec({"a"});
  spec.set_tolerance(0.7);
  EXPECT_THAT(Start(spec), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("tolerance")));
  spec = Spec({"a"});
  spec.add_suites(static_cast<v1::Suite>(99));  // a newer client's
  EXPECT_THAT(Start(spec), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("suites")));
  spec = Spec({"a"});
  spec.set_baselines_toml("[[nope]]\n");
  EXPECT_THAT(Start(spec),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("baselines_toml")));
  EXPECT_EQ(validations_.RunningCount(), 0);
}

// Issue 33 item 16: a baselines file the coordinator could not read is not
// named as used; the report says why, and the request's own still count.
TEST_F(ValidationManagerTest, UnreadableBaselinesFileIsNotNamedAsUsed) {
  for (const std::string& node : kFour) AddNode(node);
  ValidationManagerConfig config;
  config.baselines_error = "/etc/ebnccl/baselines.toml: No such file or directory";
  ValidationManager unread(clock_, executor_, registry_, tests_, history_, config,
                           [] { return std::string("v-unread"); });
  absl::StatusOr<std::string> id =
      unread.Start(Spec({}), std::make_shared<RecordingValidationObserver>());
  ASSERT_THAT(id, IsOk());
  absl::StatusOr<v1::ValidationReport> report = unread.Get(*id);
  ASSERT_THAT(report, IsOk());
  EXPECT_EQ(report->baselines_origin(), "");
  EXPECT_EQ(report->baselines_error(), config.baselines_error);
  EXPECT_EQ(report->baselines_size(), 0);
  ASSERT_THAT(unread.Cancel(*id, "done"), IsOk());
}

TEST_F(ValidationManagerTest, WatchGetsTheCurrentReportThenTheEnd) {
  for (const std::string& node : kFour) AddNode(node);
  absl::StatusOr<std::string> id = Start(Spec({}));
  ASSERT_THAT(id, IsOk());
  auto watcher = std::make_shared<RecordingValidationObserver>();
  ASSERT_THAT(validations_.Watch(*id, watcher), IsOk());
  ASSERT_EQ(watcher->events.size(), 1u);
  EXPECT_EQ(watcher->events[0].accepted().rounds_size(), 1);
  RunToEnd(*id, [](const auto&) { return 100.0; });
  EXPECT_TRUE(watcher->events.back().has_finished());
  auto late = std::make_shared<RecordingValidationObserver>();
  ASSERT_THAT(validations_.Watch(*id, late), IsOk());
  ASSERT_EQ(late->events.size(), 2u);
  EXPECT_EQ(late->events[1].finished().state(), v1::VALIDATION_STATE_DONE);
  EXPECT_THAT(validations_.Watch("v-9", late),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("v-9")));
}

}  // namespace
}  // namespace eb::coordinator
