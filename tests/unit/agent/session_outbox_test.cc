#include "agent/core/session_outbox.h"

#include <string>

#include "common/spec/limits.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::HasSubstr;

v1::AgentMessage OutboxHeartbeat(int64_t sequence) {
  v1::AgentMessage message;
  message.mutable_heartbeat()->set_sequence(sequence);
  return message;
}

v1::AgentMessage OutboxEvent(int rank) {
  v1::AgentMessage message;
  message.mutable_worker_event()->set_rank(rank);
  return message;
}

v1::AgentMessage OutboxPage(uint64_t id, int64_t bytes) {
  v1::AgentMessage message;
  message.mutable_log_content()->set_request_id(id);
  message.mutable_log_content()->set_content(std::string(static_cast<size_t>(bytes), 'x'));
  return message;
}

// A coordinator that does not read costs one queued heartbeat, the latest,
// in the place of the first one not taken.
TEST(SessionOutboxTest, AHeartbeatReplacesTheOneStillQueued) {
  SessionOutbox outbox(8);
  ASSERT_TRUE(outbox.Push(OutboxHeartbeat(1)));
  ASSERT_TRUE(outbox.Push(OutboxEvent(3)));
  for (int64_t sequence = 2; sequence <= 1000; ++sequence)
    ASSERT_TRUE(outbox.Push(OutboxHeartbeat(sequence)));
  ASSERT_EQ(outbox.size(), 2u);
  EXPECT_EQ(outbox.Take().heartbeat().sequence(), 1000);
  EXPECT_EQ(outbox.Take().worker_event().rank(), 3);
  EXPECT_TRUE(outbox.empty());
}

// P2-P13: log pages hold at most kMaxQueuedLogPageBytes; a page beyond is
// answered with an error, and the room comes back as pages are taken.
TEST(SessionOutboxTest, LogPagesBeyondTheirBytesAreAnsweredWithAnError) {
  SessionOutbox outbox(1000);
  const int64_t page = spec::kMaxLogPageBytes;
  const int fit = static_cast<int>(spec::kMaxQueuedLogPageBytes / page);
  for (int i = 0; i < fit; ++i) ASSERT_TRUE(outbox.Push(OutboxPage(i, page)));
  EXPECT_EQ(outbox.queued_log_bytes(), spec::kMaxQueuedLogPageBytes);
  ASSERT_TRUE(outbox.Push(OutboxPage(99, page)));
  EXPECT_EQ(outbox.queued_log_bytes(), spec::kMaxQueuedLogPageBytes);
  for (int i = 0; i < fit; ++i) EXPECT_EQ(outbox.Take().log_content().content().size(), page);
  const v1::AgentMessage refused = outbox.Take();
  EXPECT_EQ(refused.log_content().request_id(), 99u);
  EXPECT_TRUE(refused.log_content().content().empty());
  EXPECT_THAT(refused.log_content().error(), HasSubstr("wait for the coordinator to read them"));
  EXPECT_EQ(outbox.queued_log_bytes(), 0);
  ASSERT_TRUE(outbox.Push(OutboxPage(100, page)));
  EXPECT_EQ(outbox.queued_log_bytes(), page);
}

// Issue 32 item 8: at max_messages the outbox takes nothing more and says
// so (the session then ends); a heartbeat still replaces its queued one.
TEST(SessionOutboxTest, AFullOutboxRefusesAndTheSessionEnds) {
  SessionOutbox outbox(3);
  ASSERT_TRUE(outbox.Push(OutboxHeartbeat(1)));
  ASSERT_TRUE(outbox.Push(OutboxEvent(0)));
  ASSERT_TRUE(outbox.Push(OutboxPage(1, 10)));
  EXPECT_FALSE(outbox.Push(OutboxEvent(1)));
  EXPECT_FALSE(outbox.Push(OutboxPage(2, 10)));
  EXPECT_TRUE(outbox.Push(OutboxHeartbeat(2)));
  EXPECT_EQ(outbox.size(), 3u);
  outbox.Clear();
  EXPECT_TRUE(outbox.empty());
  EXPECT_EQ(outbox.queued_log_bytes(), 0);
  EXPECT_TRUE(outbox.Push(OutboxEvent(2)));
}

// Worker events at the front leave as one batch (event_batching.h).
TEST(SessionOutboxTest, ARunOfWorkerEventsIsTakenAsOneBatch) {
  SessionOutbox outbox(16);
  for (int rank = 0; rank < 4; ++rank) ASSERT_TRUE(outbox.Push(OutboxEvent(rank)));
  ASSERT_TRUE(outbox.Push(OutboxHeartbeat(1)));
  EXPECT_TRUE(outbox.FrontIsWorkerEvent());
  const v1::AgentMessage batch = outbox.Take();
  EXPECT_EQ(batch.worker_events().events_size(), 4);
  EXPECT_FALSE(outbox.FrontIsWorkerEvent());
  EXPECT_TRUE(outbox.Take().has_heartbeat());
}

}  // namespace
}  // namespace eb::agent
