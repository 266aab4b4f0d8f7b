#include "coordinator/core/log_requests.h"

#include "absl/strings/str_cat.h"

namespace eb::coordinator {

LogRequests::LogRequests(common::Executor& executor, absl::Duration timeout)
    : executor_(executor), timeout_(timeout) {}

LogRequests::~LogRequests() {
  for (auto& [id, pending] : pending_) executor_.Cancel(pending.timer);
}

uint64_t LogRequests::Add(Callback done) {
  const uint64_t id = next_id_++;
  const common::TimerId timer = executor_.PostAfter(timeout_, [this, id] {
    auto it = pending_.find(id);
    if (it == pending_.end()) return;
    Callback expired = std::move(it->second.done);
    pending_.erase(it);
    expired(absl::DeadlineExceededError(
        absl::StrCat("the agent did not send the log within ", absl::FormatDuration(timeout_))));
  });
  pending_.emplace(id, Pending{std::move(done), timer});
  return id;
}

void LogRequests::Complete(const ebnccl::v1::LogContent& content) {
  auto it = pending_.find(content.request_id());
  if (it == pending_.end()) return;
  executor_.Cancel(it->second.timer);
  Callback done = std::move(it->second.done);
  pending_.erase(it);
  done(content);
}

}  // namespace eb::coordinator
