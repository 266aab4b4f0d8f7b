#pragma once

// What the agent's session holds for the coordinator until the stream takes
// it (pure: no gRPC, no threads; CoordinatorSession guards it with its
// mutex). Bounded whatever the coordinator does (issue 32 item 8): it may
// stop reading the stream while its connection stays up, and the agent
// keeps producing heartbeats, worker events and answers.
//  - A heartbeat replaces one still queued: only the latest state matters,
//    so a coordinator that does not read costs one heartbeat, not one per
//    period.
//  - Log pages hold at most spec::kMaxQueuedLogPageBytes of content; a page
//    beyond is answered with an error saying why (P2-P13).
//  - At most `max_messages` messages in all: a coordinator that has left
//    that many unread is not reading; Push says so, and the session ends
//    (the agent reconnects; a live coordinator sees the node come back).
//  - A rank's PROGRESS replaces its PROGRESS still queued, unless another
//    event of that rank was queued after it (the order of a rank's events
//    is kept): the coordinator's hang detector needs only the newest
//    (issue 29 item 2), so at most one PROGRESS a rank waits, and a
//    coordinator that reads slowly is not sent stale ones.
//  - Take() batches a run of worker events (event_batching.h).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>

#include "ebnccl/v1/agent.pb.h"

namespace eb::agent {

class SessionOutbox {
 public:
  explicit SessionOutbox(size_t max_messages);

  // Queues `message`; false when the outbox already holds max_messages
  // (nothing is queued: end the session).
  [[nodiscard]] bool Push(ebnccl::v1::AgentMessage message);

  bool empty() const { return messages_.empty(); }
  size_t size() const { return messages_.size(); }
  // The next message is a worker event (the writer may linger for more).
  bool FrontIsWorkerEvent() const;
  // Every queued message is a PROGRESS event (the writer may linger for
  // the other ranks' reports of the period); false when empty.
  bool OnlyProgress() const { return !messages_.empty() && not_progress_ == 0; }
  // Removes and returns the next message to write; not empty().
  ebnccl::v1::AgentMessage Take();
  void Clear();

  int64_t queued_log_bytes() const { return queued_log_bytes_; }

 private:
  // A rank's last worker event queued: its position (counted from the
  // first message ever queued since Clear) and whether it is a PROGRESS.
  struct LastEvent {
    int64_t position = 0;
    bool progress = false;
  };
  using RankKey = std::pair<std::string, int>;  // test id, rank

  // Puts a PROGRESS `message` in the place of its rank's queued one; false
  // when there is none, or a later event of the rank is queued.
  bool ReplaceQueuedProgress(ebnccl::v1::AgentMessage& message);
  // Forgets the ranks whose last event was taken, when there are many.
  void PruneTakenRanks();

  const size_t max_messages_;
  std::deque<ebnccl::v1::AgentMessage> messages_;
  // Messages taken from the front since Clear: messages_[i] is at position
  // taken_ + i.
  int64_t taken_ = 0;
  std::map<RankKey, LastEvent> last_event_;
  // Queued messages other than PROGRESS events.
  size_t not_progress_ = 0;
  // Bytes of log page content in messages_.
  int64_t queued_log_bytes_ = 0;
};

}  // namespace eb::agent
