#include "agent/core/session_outbox.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/core/event_batching.h"
#include "common/spec/limits.h"

namespace eb::agent {
namespace v1 = ebnccl::v1;

SessionOutbox::SessionOutbox(size_t max_messages) : max_messages_(max_messages) {}

bool SessionOutbox::Push(v1::AgentMessage message) {
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
  messages_.push_back(std::move(message));
  return true;
}

bool SessionOutbox::FrontIsWorkerEvent() const {
  return !messages_.empty() && messages_.front().has_worker_event();
}

v1::AgentMessage SessionOutbox::Take() {
  v1::AgentMessage next = TakeNextMessage(messages_);
  if (next.has_log_content()) {
    queued_log_bytes_ -= static_cast<int64_t>(next.log_content().content().size());
  }
  return next;
}

void SessionOutbox::Clear() {
  messages_.clear();
  queued_log_bytes_ = 0;
}

}  // namespace eb::agent
