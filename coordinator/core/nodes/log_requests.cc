#include "coordinator/core/nodes/log_requests.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/spec/identifiers.h"
#include "common/spec/limits.h"
#include "common/status/status_macros.h"

namespace eb::coordinator {

LogRequests::LogRequests(common::Executor& executor, absl::Duration timeout)
    : executor_(executor), timeout_(timeout) {}

LogRequests::~LogRequests() {
  for (auto& [id, pending] : pending_) executor_.Cancel(pending.timer);
}

absl::StatusOr<ebnccl::v1::FetchLog> MakeFetchLog(const ebnccl::v1::GetLogRequest& request,
                                                  uint64_t request_id) {
  EB_RETURN_IF_ERROR(spec::CheckTestId(request.test_id(), "test_id"));
  if (request.max_bytes() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_bytes: must be >= 0 (0 means one page), got ", request.max_bytes()));
  }
  if (request.has_offset() && request.offset() < 0) {
    return absl::InvalidArgumentError(absl::StrCat("offset: must be >= 0, got ", request.offset()));
  }
  ebnccl::v1::FetchLog fetch;
  fetch.set_request_id(request_id);
  fetch.set_test_id(request.test_id());
  fetch.set_rank(request.rank());
  fetch.set_max_bytes(request.max_bytes() == 0
                          ? spec::kMaxLogPageBytes
                          : std::min(request.max_bytes(), spec::kMaxLogPageBytes));
  if (request.has_offset()) fetch.set_offset(request.offset());
  return fetch;
}

void FillGetLogReply(const ebnccl::v1::LogContent& content, const std::string& node_name,
                     ebnccl::v1::GetLogReply* reply) {
  reply->set_node_name(node_name);
  reply->set_path(content.path());
  reply->set_content(content.content());
  reply->set_truncated(content.truncated());
  reply->set_offset(content.offset());
  reply->set_next_offset(content.next_offset());
  reply->set_size(content.size());
}

uint64_t LogRequests::Add(std::string asked, Callback done) {
  if (pending_.size() >= kMaxPending) {
    done(absl::ResourceExhaustedError(absl::StrCat(
        kMaxPending, " log requests are already waiting for agents; try again shortly")));
    return 0;
  }
  const uint64_t id = next_id_++;
  const common::TimerId timer = executor_.PostAfter(timeout_, [this, id] {
    auto it = pending_.find(id);
    if (it == pending_.end()) return;
    Callback expired = std::move(it->second.done);
    pending_.erase(it);
    expired(absl::DeadlineExceededError(
        absl::StrCat("the agent did not send the log within ", absl::FormatDuration(timeout_))));
  });
  pending_.emplace(id, Pending{std::move(asked), std::move(done), timer});
  return id;
}

bool LogRequests::Complete(const std::string& sender, const ebnccl::v1::LogContent& content) {
  auto it = pending_.find(content.request_id());
  if (it == pending_.end()) return true;
  if (it->second.asked != sender) {
    ++refused_;
    // Powers of two: a flood of forged answers costs a few audit rows.
    if (on_refused_ && (refused_ & (refused_ - 1)) == 0) {
      on_refused_(sender, it->second.asked, refused_);
    }
    return false;
  }
  executor_.Cancel(it->second.timer);
  Callback done = std::move(it->second.done);
  pending_.erase(it);
  done(content);
  return true;
}

}  // namespace eb::coordinator
