#include "agent/core/session_outbox.h"

#include <string>
#include <utility>
#include <vector>

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

v1::AgentMessage OutboxReport(const std::string& test_id, int rank, v1::WorkerEventKind kind,
                              int calls_done = 0) {
  v1::AgentMessage message;
  v1::WorkerEvent& event = *message.mutable_worker_event();
  event.set_test_id(test_id);
  event.set_rank(rank);
  event.set_kind(kind);
  if (kind == v1::WORKER_EVENT_KIND_PROGRESS) event.mutable_progress()->set_calls_done(calls_done);
  return message;
}

v1::AgentMessage OutboxProgress(int rank, int calls_done, const std::string& test_id = "t-1") {
  return OutboxReport(test_id, rank, v1::WORKER_EVENT_KIND_PROGRESS, calls_done);
}

// (rank, calls_done or -1 when not a PROGRESS) of each event taken.
std::vector<std::pair<int, int>> Reports(const v1::AgentMessage& taken) {
  std::vector<std::pair<int, int>> reports;
  for (const v1::WorkerEvent& event : taken.worker_events().events()) {
    reports.emplace_back(event.rank(), event.kind() == v1::WORKER_EVENT_KIND_PROGRESS
                                           ? event.progress().calls_done()
                                           : -1);
  }
  return reports;
}

// Issue 29 item 2: the coordinator needs only each rank's newest PROGRESS.
// A rank's report replaces its queued one in place; other ranks' and other
// tests' reports stay.
TEST(SessionOutboxTest, ARanksProgressReplacesItsQueuedProgress) {
  SessionOutbox outbox(16);
  ASSERT_TRUE(outbox.Push(OutboxProgress(0, 10)));
  ASSERT_TRUE(outbox.Push(OutboxProgress(1, 10)));
  ASSERT_TRUE(outbox.Push(OutboxProgress(0, 20)));
  ASSERT_TRUE(outbox.Push(OutboxProgress(0, 30, "t-2")));
  ASSERT_TRUE(outbox.Push(OutboxProgress(0, 40)));
  EXPECT_EQ(outbox.size(), 3u);
  EXPECT_TRUE(outbox.OnlyProgress());
  const v1::AgentMessage batch = outbox.Take();
  ASSERT_EQ(batch.worker_events().events_size(), 3);
  EXPECT_EQ(Reports(batch), (std::vector<std::pair<int, int>>{{0, 40}, {1, 10}, {0, 30}}));
  EXPECT_EQ(batch.worker_events().events(2).test_id(), "t-2");
  EXPECT_TRUE(outbox.empty());
  EXPECT_FALSE(outbox.OnlyProgress());
}

// A rank's events keep their order: a PROGRESS behind the rank's SIZE_DONE
// is not moved before it, and one already taken is not replaced.
TEST(SessionOutboxTest, ProgressNeverJumpsTheRanksLaterEventOrOneTaken) {
  SessionOutbox outbox(16);
  ASSERT_TRUE(outbox.Push(OutboxProgress(0, 10)));
  ASSERT_TRUE(outbox.Push(OutboxReport("t-1", 0, v1::WORKER_EVENT_KIND_SIZE_DONE)));
  EXPECT_FALSE(outbox.OnlyProgress());
  ASSERT_TRUE(outbox.Push(OutboxProgress(0, 1)));
  ASSERT_TRUE(outbox.Push(OutboxProgress(0, 2)));
  EXPECT_EQ(Reports(outbox.Take()), (std::vector<std::pair<int, int>>{{0, 10}, {0, -1}, {0, 2}}));
  // Taken: the next report is queued anew, not written into the past.
  ASSERT_TRUE(outbox.Push(OutboxProgress(0, 3)));
  EXPECT_EQ(outbox.size(), 1u);
  EXPECT_TRUE(outbox.OnlyProgress());
  const v1::AgentMessage lone = outbox.Take();
  ASSERT_TRUE(lone.has_worker_event());
  EXPECT_EQ(lone.worker_event().progress().calls_done(), 3);
}

// A coordinator that stops reading holds one PROGRESS a rank, however long
// the reports go on: they never fill the outbox and end the session.
TEST(SessionOutboxTest, ProgressOfAStalledReaderNeverFillsTheOutbox) {
  SessionOutbox outbox(8);
  ASSERT_TRUE(outbox.Push(OutboxHeartbeat(1)));
  for (int report = 0; report < 10'000; ++report) {
    ASSERT_TRUE(outbox.Push(OutboxProgress(report % 4, report))) << report;
  }
  EXPECT_EQ(outbox.size(), 5u);
  EXPECT_FALSE(outbox.OnlyProgress());  // the heartbeat
  EXPECT_TRUE(outbox.Take().has_heartbeat());
  EXPECT_TRUE(outbox.OnlyProgress());
  EXPECT_EQ(Reports(outbox.Take()),
            (std::vector<std::pair<int, int>>{{0, 9996}, {1, 9997}, {2, 9998}, {3, 9999}}));
  // Many ranks taken and gone: what the outbox remembers of them is let go
  // (no growth with every rank ever seen), and replacement still works.
  for (int round = 0; round < 50; ++round) {
    for (int rank = 0; rank < 8; ++rank) {
      ASSERT_TRUE(outbox.Push(OutboxProgress(round * 8 + rank, 1)));
    }
    ASSERT_TRUE(outbox.Push(OutboxProgress(round * 8, 2)));
    const v1::AgentMessage batch = outbox.Take();
    ASSERT_EQ(batch.worker_events().events_size(), 8);
    EXPECT_EQ(batch.worker_events().events(0).progress().calls_done(), 2);
  }
}

}  // namespace
}  // namespace eb::agent
