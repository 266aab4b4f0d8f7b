// TestRun: launch commands and the phase that follows the slowest rank.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/coordinator/test_run_fixture.h"

namespace eb::coordinator::test {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

class TestRunLaunchTest : public TestRunFixture {};

std::vector<int> RanksOf(const v1::LaunchTest& launch) {
  std::vector<int> ranks;
  for (const v1::RankAssignment& rank : launch.ranks()) ranks.push_back(rank.rank());
  return ranks;
}

TEST_F(TestRunLaunchTest, StartPublishesAcceptedAndLaunchesEachNodeWithOnlyItsRanks) {
  CreateAndStart(/*num_nodes=*/3, /*per_node=*/2);

  ASSERT_EQ(host_.events.size(), 1u);
  ASSERT_TRUE(host_.events[0].has_accepted());
  const v1::TestReport& accepted = host_.events[0].accepted();
  EXPECT_EQ(accepted.test_id(), "t-1");
  EXPECT_EQ(accepted.state(), v1::TEST_STATE_LAUNCHING);
  EXPECT_EQ(accepted.ranks_size(), 6);
  EXPECT_EQ(accepted.transport(), v1::TRANSPORT_NCCL);
  EXPECT_EQ(accepted.node_inventories_size(), 3);
  EXPECT_EQ(accepted.start_time_unix_ms(), absl::ToUnixMillis(clock_.Now()));
  EXPECT_THAT(host_.published_test_ids, ElementsAre("t-1"));

  const auto launches = host_.Launches();
  ASSERT_EQ(host_.sent.size(), 3u);
  ASSERT_EQ(launches.size(), 3u);
  const std::vector<std::string> nodes = {"node-a", "node-b", "node-c"};
  const std::vector<std::vector<int>> ranks = {{0, 1}, {2, 3}, {4, 5}};
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(nodes[i]);
    const auto& [node, launch] = launches[i];
    EXPECT_EQ(node, nodes[i]);
    EXPECT_EQ(launch.test_id(), "t-1");
    EXPECT_EQ(launch.spec().collective(), v1::COLLECTIVE_ALL_REDUCE);
    EXPECT_EQ(launch.spec().transport(), v1::TRANSPORT_NCCL);
    EXPECT_EQ(RanksOf(launch), ranks[i]);
    for (const v1::RankAssignment& rank : launch.ranks()) EXPECT_EQ(rank.node_name(), nodes[i]);
    // The workers' own deadlines are backstops behind the coordinator's.
    EXPECT_EQ(launch.register_timeout_ms(), 10'000);
    EXPECT_EQ(launch.init_timeout_ms(), 10'000 + 20'000 + 2'000);
    EXPECT_EQ(launch.op_timeout_ms(), 30'000 + 2'000);
  }
  EXPECT_EQ(report().state(), v1::TEST_STATE_LAUNCHING);
  EXPECT_FALSE(run_->finished());
  EXPECT_THAT(run_->nodes(), ElementsAre("node-a", "node-b", "node-c"));
}

TEST_F(TestRunLaunchTest, PhasesFollowTheSlowestRank) {
  CreateAndStart();
  Register(0);
  Register(1);
  Register(2);
  EXPECT_THAT(host_.StateChanges(), IsEmpty());
  Register(3);
  EXPECT_THAT(host_.StateChanges(), ElementsAre(v1::TEST_STATE_INITIALIZING));
  EXPECT_EQ(report().state(), v1::TEST_STATE_INITIALIZING);

  Join(0);
  Join(1);
  Join(2);
  EXPECT_THAT(host_.StateChanges(), ElementsAre(v1::TEST_STATE_INITIALIZING));
  Join(3);
  EXPECT_THAT(host_.StateChanges(),
              ElementsAre(v1::TEST_STATE_INITIALIZING, v1::TEST_STATE_RUNNING));
  EXPECT_EQ(report().state(), v1::TEST_STATE_RUNNING);
  EXPECT_THAT(host_.Stops(), IsEmpty());
}

TEST_F(TestRunLaunchTest, JoinedBeforeAnotherAgentsRegisteredIsHandled) {
  // node-a's ranks register and join before node-b's REGISTERED events
  // arrive over node-b's own stream.
  CreateAndStart();
  Register(0);
  Register(1);
  Join(0);
  Join(1);
  EXPECT_THAT(host_.StateChanges(), IsEmpty());
  Register(2);
  Join(2);
  EXPECT_THAT(host_.StateChanges(), IsEmpty());
  Register(3);
  EXPECT_THAT(host_.StateChanges(), ElementsAre(v1::TEST_STATE_INITIALIZING));
  Join(3);
  EXPECT_THAT(host_.StateChanges(),
              ElementsAre(v1::TEST_STATE_INITIALIZING, v1::TEST_STATE_RUNNING));
}

TEST_F(TestRunLaunchTest, RepeatedOrStaleEventsDoNotMoveThePhaseBack) {
  CreateAndStart();
  RegisterAll();
  JoinAll();
  Register(2);
  Join(1);
  EXPECT_EQ(report().state(), v1::TEST_STATE_RUNNING);
  EXPECT_THAT(host_.StateChanges(),
              ElementsAre(v1::TEST_STATE_INITIALIZING, v1::TEST_STATE_RUNNING));
}

TEST_F(TestRunLaunchTest, EventsForRanksTheNodeDoesNotRunAreIgnored) {
  CreateAndStart();
  // node-b claims rank 0 (node-a's) and ranks outside the test.
  run_->OnWorkerEvent("node-b", Event(0, v1::WORKER_EVENT_KIND_REGISTERED));
  run_->OnWorkerEvent("node-b", Event(4, v1::WORKER_EVENT_KIND_REGISTERED));
  run_->OnWorkerEvent("node-b", Event(-1, v1::WORKER_EVENT_KIND_REGISTERED));
  v1::WorkerEvent exited = Event(0, v1::WORKER_EVENT_KIND_EXITED);
  exited.mutable_failure()->set_kind(v1::FAILURE_KIND_WORKER_EXITED);
  run_->OnWorkerEvent("node-b", exited);
  run_->OnWorkerEvent("node-z", exited);
  Register(1);
  Register(2);
  Register(3);

  // Rank 0 is still unregistered and nothing failed.
  EXPECT_EQ(report().state(), v1::TEST_STATE_LAUNCHING);
  EXPECT_THAT(host_.StateChanges(), IsEmpty());
  EXPECT_EQ(report().failures_size(), 0);
  EXPECT_THAT(host_.Stops(), IsEmpty());

  Register(0);
  EXPECT_THAT(host_.StateChanges(), ElementsAre(v1::TEST_STATE_INITIALIZING));
}

// Issue 33 item 6: the pid each agent spawned reaches the report (the
// "#  Rank .. Pid" line); a node's pid is input, kept only in Linux's range
// and only once.
TEST_F(TestRunLaunchTest, RegisteredKeepsTheWorkersPidWhenInRange) {
  CreateAndStart();
  const auto registered = [&](int rank, int32_t pid) {
    v1::WorkerEvent event = Event(rank, v1::WORKER_EVENT_KIND_REGISTERED);
    event.set_pid(pid);
    run_->OnWorkerEvent(NodeOf(rank), event);
  };
  registered(0, 12345);
  registered(0, 999);  // a repeat does not rename the process
  registered(1, -7);
  registered(2, 4194305);  // above PID_MAX_LIMIT
  registered(3, 4194304);
  EXPECT_EQ(report().ranks(0).worker_pid(), 12345);
  EXPECT_EQ(report().ranks(1).worker_pid(), 0);
  EXPECT_EQ(report().ranks(2).worker_pid(), 0);
  EXPECT_EQ(report().ranks(3).worker_pid(), 4194304);
  // Out of range is not a failure: the ranks registered.
  EXPECT_EQ(report().failures_size(), 0);
  EXPECT_EQ(report().state(), v1::TEST_STATE_INITIALIZING);
}

}  // namespace
}  // namespace eb::coordinator::test
