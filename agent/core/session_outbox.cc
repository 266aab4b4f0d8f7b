#include "agent/core/session_outbox.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/core/event_batching.h"
#include "common/spec/limits.h"

namespace eb::agent {
namespace v1 = ebnccl::v1;

namespace {

bool IsProgress(const v1::AgentMessage& message) {
  return message.has_worker_event() &&
         message.worker_event().kind() == v1::WORKER_EVENT_KIND_PROGRESS;
}

// What in `message` (one message, or a batch of worker events) is not a
// PROGRESS event: counted alike when queued and when taken.
size_t NotProgressIn(const v1::AgentMessage& message) {
  if (!message.has_worker_events()) return IsProgress(message) ? 0 : 1;
  size_t count = 0;
  for (const v1::WorkerEvent& event : message.worker_events().events()) {
    count += event.kind() != v1::WORKER_EVENT_KIND_PROGRESS;
  }
  return count;
}

}  // namespace

SessionOutbox::SessionOutbox(size_t max_messages) : max_messages_(max_messages) {}

bool SessionOutbox::ReplaceQueuedProgress(v1::AgentMessage& message) {
  const v1::WorkerEvent& event = message.worker_event();
  auto last = last_event_.find(RankKey(event.test_id(), event.rank()));
  if (last == last_event_.end() || !last->second.progress || last->second.position < taken_) {
    return false;
  }
  messages_[static_cast<size_t>(last->second.position - taken_)] = std::move(message);
  return true;
}

void SessionOutbox::PruneTakenRanks() {
  if (last_event_.size() <= 2 * messages_.size() + 64) return;
  std::erase_if(last_event_, [this](const auto& entry) { return entry.second.position < taken_; });
}

bool SessionOutbox::Push(v1::AgentMessage message) {
  const bool progress = IsProgress(message);
  if (progress && ReplaceQueuedProgress(message)) return true;
  if (message.has_heartbeat()) {
    // At most one heartbeat is ever queued (this replaces it).
    auto queued = std::find_if(messages_.begin(), messages_.end(),
                               [](const v1::AgentMessage& m) { return m.has_heartbeat(); });
    if (queued != messages_.end()) {
      *queued = std::move(message);
      return true;
    }
  }
  if (messages_.size() >= max_messages_) return false;
  if (message.has_log_content()) {
    const auto bytes = static_cast<int64_t>(message.log_content().content().size());
    if (queued_log_bytes_ + bytes > spec::kMaxQueuedLogPageBytes) {
      // Answered, not dropped: the coordinator is told why and may ask again.
      v1::LogContent& page = *message.mutable_log_content();
      page.clear_content();
      page.set_error(
          absl::StrCat("log page not sent: ", queued_log_bytes_,
                       " bytes of log pages already wait for the coordinator to read them (limit ",
                       spec::kMaxQueuedLogPageBytes, "); ask again later"));
    } else {
      queued_log_bytes_ += bytes;
    }
  }
  if (message.has_worker_event()) {
    const v1::WorkerEvent& event = message.worker_event();
    last_event_[RankKey(event.test_id(), event.rank())] =
        LastEvent{taken_ + static_cast<int64_t>(messages_.size()), progress};
  }
  not_progress_ += NotProgressIn(message);
  messages_.push_back(std::move(message));
  return true;
}

bool SessionOutbox::FrontIsWorkerEvent() const {
  return !messages_.empty() && messages_.front().has_worker_event();
}

v1::AgentMessage SessionOutbox::Take() {
  const size_t before = messages_.size();
  v1::AgentMessage next = TakeNextMessage(messages_);
  taken_ += static_cast<int64_t>(before - messages_.size());
  not_progress_ -= NotProgressIn(next);
  PruneTakenRanks();
  if (next.has_log_content()) {
    queued_log_bytes_ -= static_cast<int64_t>(next.log_content().content().size());
  }
  return next;
}

void SessionOutbox::Clear() {
  messages_.clear();
  queued_log_bytes_ = 0;
  taken_ = 0;
  last_event_.clear();
  not_progress_ = 0;
}

}  // namespace eb::agent
