#include "coordinator/core/nodes/node_registry.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/config.h"
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
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;
using ::testing::StartsWith;

constexpr absl::Duration kPeriod = absl::Seconds(2);
constexpr int kMissLimit = 3;

struct LostEvent {
  std::string node;
  std::string reason;
  // What the registry said about the node while the callback ran.
  v1::NodeState state_seen = v1::NODE_STATE_UNSPECIFIED;
  std::string test_id_seen;
};

class NodeRegistryTest : public ::testing::Test {
 protected:
  NodeRegistryTest() {
    config_.heartbeat_period = kPeriod;
    config_.heartbeat_miss_limit = kMissLimit;
    registry_ = std::make_unique<NodeRegistry>(
        clock_, executor_, config_, [this](const std::string& node, const std::string& reason) {
          const NodeRecord* record = registry_->Find(node);
          lost_.push_back({node, reason, record ? record->state : v1::NODE_STATE_UNSPECIFIED,
                           record ? record->current_test_id : ""});
        });
  }

  static v1::RegisterAgent Request(const std::string& name, int slots = 4) {
    v1::RegisterAgent request;
    request.set_node_name(name);
    request.mutable_inventory()->set_hostname(name + ".cluster");
    request.mutable_inventory()->set_worker_slots(slots);
    request.mutable_inventory()->add_transports(v1::TRANSPORT_GLOO);
    return request;
  }

  std::shared_ptr<FakeAgentChannel> Register(uint64_t session, const std::string& name,
                                             int slots = 4) {
    auto channel =
        std::make_shared<FakeAgentChannel>("ipv4:10.0.0." + std::to_string(session) + ":51234");
    EXPECT_THAT(registry_->Register(session, Request(name, slots), channel), IsOk());
    return channel;
  }

  v1::NodeState StateOf(const std::string& name) {
    const NodeRecord* node = registry_->Find(name);
    return node ? node->state : v1::NODE_STATE_UNSPECIFIED;
  }

  eb::testing::FakeClock clock_;
  eb::testing::ManualExecutor executor_{clock_};
  CoordinatorConfig config_;
  std::vector<LostEvent> lost_;
  std::unique_ptr<NodeRegistry> registry_;
};

TEST_F(NodeRegistryTest, RegisterStoresTheNode) {
  auto channel = Register(1, "node-a", 8);
  const NodeRecord* node = registry_->Find("node-a");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->name, "node-a");
  EXPECT_EQ(node->state, v1::NODE_STATE_IDLE);
  EXPECT_EQ(node->inventory.worker_slots(), 8);
  EXPECT_EQ(node->inventory.hostname(), "node-a.cluster");
  EXPECT_EQ(node->peer, "ipv4:10.0.0.1:51234");
  EXPECT_EQ(node->channel, channel);
  EXPECT_EQ(node->session_id, 1u);
  EXPECT_EQ(node->last_heartbeat, clock_.Now());
  EXPECT_EQ(registry_->FindBySession(1), node);
  EXPECT_EQ(registry_->FindBySession(2), nullptr);
  EXPECT_EQ(registry_->Find("node-b"), nullptr);
}

TEST_F(NodeRegistryTest, RegisterRejectsAnEmptyNameAndNegativeSlots) {
  auto channel = std::make_shared<FakeAgentChannel>();
  EXPECT_THAT(registry_->Register(1, Request(""), channel),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("node_name: ")));
  EXPECT_THAT(registry_->Register(1, Request("node-a", -1), channel),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("inventory.worker_slots: ")));
  EXPECT_THAT(registry_->All(), ::testing::IsEmpty());
}

TEST_F(NodeRegistryTest, LiveDuplicateNameFromAnotherSessionIsAlreadyExists) {
  auto first = Register(1, "node-a");
  auto second = std::make_shared<FakeAgentChannel>("ipv4:10.0.0.99:1");
  EXPECT_THAT(registry_->Register(2, Request("node-a"), second),
              StatusIs(absl::StatusCode::kAlreadyExists,
                       AllOf(HasSubstr("node-a"), HasSubstr("ipv4:10.0.0.1:51234"))));
  // The live registration is untouched.
  const NodeRecord* node = registry_->Find("node-a");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->session_id, 1u);
  EXPECT_EQ(node->channel, first);
  EXPECT_EQ(registry_->FindBySession(2), nullptr);
  EXPECT_FALSE(first->closed());
  EXPECT_TRUE(lost_.empty());
}

TEST_F(NodeRegistryTest, LostNodeCanRegisterAgainFromANewSession) {
  auto old_channel = Register(1, "node-a");
  registry_->SessionClosed(1);
  ASSERT_EQ(StateOf("node-a"), v1::NODE_STATE_LOST);

  auto new_channel = Register(2, "node-a", 6);
  const NodeRecord* node = registry_->Find("node-a");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->state, v1::NODE_STATE_IDLE);
  EXPECT_EQ(node->session_id, 2u);
  EXPECT_EQ(node->channel, new_channel);
  EXPECT_EQ(node->inventory.worker_slots(), 6);
  EXPECT_EQ(registry_->FindBySession(2), node);
  EXPECT_EQ(registry_->FindBySession(1), nullptr);
  EXPECT_THAT(registry_->Heartbeat(1),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("unregistered")));
  EXPECT_THAT(registry_->Heartbeat(2), IsOk());

  // A late close of the old session does not touch the new one.
  registry_->SessionClosed(1);
  EXPECT_EQ(StateOf("node-a"), v1::NODE_STATE_IDLE);
  EXPECT_FALSE(new_channel->closed());
  EXPECT_THAT(lost_, SizeIs(1));
}

TEST_F(NodeRegistryTest, HeartbeatFromAnUnknownSessionIsNotFound) {
  EXPECT_THAT(registry_->Heartbeat(42), StatusIs(absl::StatusCode::kNotFound, ::testing::_));
}

TEST_F(NodeRegistryTest, HeartbeatsKeepANodeAlive) {
  auto beating = Register(1, "node-a");
  auto silent = Register(2, "node-b");
  registry_->Start();
  for (int i = 0; i < 10 * kMissLimit; ++i) {
    executor_.AdvanceTime(kPeriod);
    ASSERT_THAT(registry_->Heartbeat(1), IsOk());
  }
  EXPECT_EQ(StateOf("node-a"), v1::NODE_STATE_IDLE);
  EXPECT_FALSE(beating->closed());
  // The silent node next to it was lost, once.
  EXPECT_EQ(StateOf("node-b"), v1::NODE_STATE_LOST);
  ASSERT_THAT(lost_, SizeIs(1));
  EXPECT_EQ(lost_[0].node, "node-b");
  EXPECT_TRUE(silent->closed());
}

TEST_F(NodeRegistryTest, MissingHeartbeatsLoseTheNodeAndCloseItsChannel) {
  auto channel = Register(1, "node-a");
  registry_->Start();
  const absl::Duration limit = kPeriod * kMissLimit;

  executor_.AdvanceTime(limit - absl::Milliseconds(1));
  EXPECT_EQ(StateOf("node-a"), v1::NODE_STATE_IDLE);
  EXPECT_TRUE(lost_.empty());

  // Detected at the first liveness check after the limit passed.
  executor_.AdvanceTime(kPeriod + absl::Milliseconds(1));
  ASSERT_THAT(lost_, SizeIs(1));
  EXPECT_EQ(lost_[0].node, "node-a");
  EXPECT_THAT(lost_[0].reason, HasSubstr("missed 3 heartbeats"));
  EXPECT_EQ(StateOf("node-a"), v1::NODE_STATE_LOST);
  EXPECT_EQ(registry_->Find("node-a")->channel, nullptr);
  EXPECT_EQ(registry_->FindBySession(1), nullptr);
  ASSERT_THAT(channel->close_statuses(), SizeIs(1));
  EXPECT_THAT(channel->close_statuses()[0],
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("missed 3 heartbeats")));

  // Lost once, not on every later check.
  executor_.AdvanceTime(10 * kPeriod);
  EXPECT_THAT(lost_, SizeIs(1));
  EXPECT_THAT(channel->close_statuses(), SizeIs(1));
}

// The coordinator itself stalled past the miss limit (its loop busy, the
// process descheduled): the late check blames no node for the silence, the
// heartbeats queued meanwhile arrive, and nobody is lost. A node that is
// really gone is still found, one period later.
TEST_F(NodeRegistryTest, ACheckThatRunsLateJudgesNoNodeOnTheCoordinatorsOwnStall) {
  auto alive = Register(1, "node-a");
  auto dead = Register(2, "node-b");
  registry_->Start();
  executor_.AdvanceTime(kPeriod);
  ASSERT_THAT(registry_->Heartbeat(1), IsOk());
  ASSERT_THAT(registry_->Heartbeat(2), IsOk());
  // The stall: time passes and no timer runs.
  clock_.Advance(kPeriod * (kMissLimit + 2));
  executor_.RunUntilIdle();
  EXPECT_TRUE(lost_.empty());
  // What node-a sent during the stall is handled now; node-b sent nothing.
  ASSERT_THAT(registry_->Heartbeat(1), IsOk());
  executor_.AdvanceTime(kPeriod);
  EXPECT_EQ(StateOf("node-a"), v1::NODE_STATE_IDLE);
  EXPECT_FALSE(alive->closed());
  ASSERT_THAT(lost_, SizeIs(1));
  EXPECT_EQ(lost_[0].node, "node-b");
  EXPECT_TRUE(dead->closed());
}

// A coordinator late at every check still loses a dead node: at most every
// other check is skipped.
TEST_F(NodeRegistryTest, ALoopLateAtEveryCheckStillLosesADeadNode) {
  auto dead = Register(1, "node-a");
  registry_->Start();
  for (int check = 0; check < 3 && lost_.empty(); ++check) {
    clock_.Advance(kPeriod * 3);  // each check two periods late
    executor_.RunUntilIdle();
  }
  ASSERT_THAT(lost_, SizeIs(1));
  EXPECT_EQ(lost_[0].node, "node-a");
}

TEST_F(NodeRegistryTest, SessionClosedLosesTheNode) {
  auto channel = Register(1, "node-a");
  registry_->SessionClosed(1);
  ASSERT_THAT(lost_, SizeIs(1));
  EXPECT_EQ(lost_[0].node, "node-a");
  EXPECT_EQ(lost_[0].reason, "agent disconnected");
  EXPECT_EQ(StateOf("node-a"), v1::NODE_STATE_LOST);
  ASSERT_THAT(channel->close_statuses(), SizeIs(1));
  EXPECT_THAT(channel->close_statuses()[0],
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("agent disconnected")));

  registry_->SessionClosed(1);
  EXPECT_THAT(lost_, SizeIs(1));
}

TEST_F(NodeRegistryTest, SessionClosedForAnUnknownSessionChangesNothing) {
  Register(1, "node-a");
  registry_->SessionClosed(7);
  EXPECT_TRUE(lost_.empty());
  EXPECT_EQ(StateOf("node-a"), v1::NODE_STATE_IDLE);
}

TEST_F(NodeRegistryTest, LostCallbackRunsBeforeTheNodeForgetsItsTest) {
  Register(1, "node-a");
  registry_->SetBusy("node-a", "t-1");
  registry_->SessionClosed(1);
  ASSERT_THAT(lost_, SizeIs(1));
  EXPECT_EQ(lost_[0].state_seen, v1::NODE_STATE_LOST);
  EXPECT_EQ(lost_[0].test_id_seen, "t-1");
  EXPECT_EQ(registry_->Find("node-a")->current_test_id, "");
}

TEST_F(NodeRegistryTest, SetBusyAndSetIdle) {
  Register(1, "node-a");
  registry_->SetBusy("node-a", "t-1");
  EXPECT_EQ(StateOf("node-a"), v1::NODE_STATE_BUSY);
  EXPECT_EQ(registry_->Find("node-a")->current_test_id, "t-1");

  // Only the test that made it busy makes it idle again.
  registry_->SetIdle("node-a", "t-2");
  EXPECT_EQ(StateOf("node-a"), v1::NODE_STATE_BUSY);
  registry_->SetIdle("node-a", "t-1");
  EXPECT_EQ(StateOf("node-a"), v1::NODE_STATE_IDLE);
  EXPECT_EQ(registry_->Find("node-a")->current_test_id, "");

  // Unknown nodes are ignored.
  registry_->SetBusy("node-z", "t-1");
  registry_->SetIdle("node-z", "t-1");
  EXPECT_EQ(registry_->Find("node-z"), nullptr);
}

TEST_F(NodeRegistryTest, LostNodeCannotBeMadeBusyOrIdle) {
  Register(1, "node-a");
  registry_->SessionClosed(1);
  registry_->SetBusy("node-a", "t-1");
  EXPECT_EQ(StateOf("node-a"), v1::NODE_STATE_LOST);
  EXPECT_EQ(registry_->Find("node-a")->current_test_id, "");
  registry_->SetIdle("node-a", "");
  EXPECT_EQ(StateOf("node-a"), v1::NODE_STATE_LOST);
}

TEST_F(NodeRegistryTest, ToStatusReportsEveryField) {
  Register(3, "node-a", 8);
  registry_->SetBusy("node-a", "t-9");
  executor_.AdvanceTime(absl::Milliseconds(1500));
  const v1::NodeStatus status = registry_->ToStatus(*registry_->Find("node-a"));
  EXPECT_EQ(status.node_name(), "node-a");
  EXPECT_EQ(status.peer_address(), "ipv4:10.0.0.3:51234");
  EXPECT_EQ(status.state(), v1::NODE_STATE_BUSY);
  EXPECT_EQ(status.inventory().worker_slots(), 8);
  EXPECT_EQ(status.inventory().hostname(), "node-a.cluster");
  EXPECT_EQ(status.heartbeat_age_ms(), 1500);
  EXPECT_EQ(status.current_test_id(), "t-9");

  ASSERT_THAT(registry_->Heartbeat(3), IsOk());
  EXPECT_EQ(registry_->ToStatus(*registry_->Find("node-a")).heartbeat_age_ms(), 0);
}

TEST_F(NodeRegistryTest, AllIsSortedByName) {
  Register(1, "node-c");
  Register(2, "node-a");
  Register(3, "node-b");
  std::vector<std::string> names;
  for (const NodeRecord* node : registry_->All()) names.push_back(node->name);
  EXPECT_THAT(names, ElementsAre("node-a", "node-b", "node-c"));
}

// Regression (fixed): Register() accepts a second RegisterAgent from the session that
// already owns the name (AgentServiceImpl::HandleMessage passes every
// `register` message to it) and then resets the record: state IDLE and
// current_test_id cleared, although the node's test is still running. The
// next StartTest can then place a second test on the busy node (two tests on
// the same GPUs). Proposed fix in NodeRegistry::Register: when the record
// is live and belongs to the same session, only refresh inventory/peer and
// keep state and current_test_id (or refuse with FAILED_PRECONDITION
// "already registered").
TEST_F(NodeRegistryTest, ReRegistrationFromTheSameSessionKeepsABusyNodeBusy) {
  auto channel = Register(1, "node-a");
  registry_->SetBusy("node-a", "t-1");
  (void)registry_->Register(1, Request("node-a"), channel);
  EXPECT_EQ(StateOf("node-a"), v1::NODE_STATE_BUSY);
  EXPECT_EQ(registry_->Find("node-a")->current_test_id, "t-1");
}

}  // namespace
}  // namespace eb::coordinator
