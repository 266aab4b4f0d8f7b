// TakeNextMessage (agent/core/event_batching.h): runs of worker events
// become one batch, in order, within both bounds; every other message goes
// alone and in its place.

#include "agent/core/event_batching.h"

#include <deque>
#include <string>
#include <vector>

#include "common/spec/limits.h"
#include "gtest/gtest.h"
#include "tests/unit/agent/worker_event_test_util.h"

namespace eb::agent {
namespace {

namespace v1 = ebnccl::v1;

v1::AgentMessage Event(int rank, size_t message_bytes = 0) {
  v1::AgentMessage message;
  v1::WorkerEvent& event = *message.mutable_worker_event();
  event.set_test_id("t-1");
  event.set_rank(rank);
  event.set_kind(v1::WORKER_EVENT_KIND_FAILED);
  if (message_bytes > 0) event.mutable_failure()->set_message(std::string(message_bytes, 'x'));
  return message;
}

v1::AgentMessage Heartbeat() {
  v1::AgentMessage message;
  message.mutable_heartbeat()->set_sequence(7);
  return message;
}

using test::Ranks;

TEST(EventBatchingTest, ARunOfEventsIsOneBatchAndOtherMessagesKeepTheirPlace) {
  std::deque<v1::AgentMessage> outbox = {Event(0), Event(1), Event(2), Heartbeat(), Event(3)};
  const v1::AgentMessage first = TakeNextMessage(outbox);
  ASSERT_TRUE(first.has_worker_events());
  EXPECT_EQ(Ranks(first), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(first.worker_events().events(0).test_id(), "t-1");
  EXPECT_TRUE(TakeNextMessage(outbox).has_heartbeat());
  // A run of one stays a plain worker_event.
  const v1::AgentMessage last = TakeNextMessage(outbox);
  ASSERT_TRUE(last.has_worker_event());
  EXPECT_EQ(last.worker_event().rank(), 3);
  EXPECT_TRUE(outbox.empty());
}

TEST(EventBatchingTest, ANonEventAtTheFrontGoesAlone) {
  std::deque<v1::AgentMessage> outbox = {Heartbeat(), Event(0), Event(1)};
  EXPECT_TRUE(TakeNextMessage(outbox).has_heartbeat());
  EXPECT_EQ(outbox.size(), 2u);
}

TEST(EventBatchingTest, ABatchHoldsAtMostTheEventBound) {
  std::deque<v1::AgentMessage> outbox;
  for (int rank = 0; rank <= spec::kMaxWorkerEventsPerBatch; ++rank) outbox.push_back(Event(rank));
  const v1::AgentMessage batch = TakeNextMessage(outbox);
  EXPECT_EQ(batch.worker_events().events_size(), spec::kMaxWorkerEventsPerBatch);
  ASSERT_EQ(outbox.size(), 1u);
  const v1::AgentMessage rest = TakeNextMessage(outbox);
  ASSERT_TRUE(rest.has_worker_event());
  EXPECT_EQ(rest.worker_event().rank(), spec::kMaxWorkerEventsPerBatch);
}

TEST(EventBatchingTest, ABatchStaysWithinTheByteBound) {
  // Three events of 40% of the bound each: two fit, the third waits.
  const size_t big = static_cast<size_t>(spec::kMaxWorkerEventBatchBytes * 2 / 5);
  std::deque<v1::AgentMessage> outbox = {Event(0, big), Event(1, big), Event(2, big)};
  const v1::AgentMessage batch = TakeNextMessage(outbox);
  EXPECT_EQ(Ranks(batch), (std::vector<int>{0, 1}));
  EXPECT_LE(static_cast<int64_t>(batch.ByteSizeLong()), spec::kMaxWorkerEventBatchBytes + 64);
  EXPECT_EQ(Ranks(TakeNextMessage(outbox)), (std::vector<int>{2}));
}

}  // namespace
}  // namespace eb::agent
