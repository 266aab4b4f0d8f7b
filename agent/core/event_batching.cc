#include "agent/core/event_batching.h"

#include <cstdint>
#include <utility>

#include "common/spec/limits.h"

namespace eb::agent {
namespace v1 = ebnccl::v1;

v1::AgentMessage TakeNextMessage(std::deque<v1::AgentMessage>& outbox) {
  v1::AgentMessage first = std::move(outbox.front());
  outbox.pop_front();
  if (!first.has_worker_event() || outbox.empty() || !outbox.front().has_worker_event()) {
    return first;
  }
  v1::AgentMessage batch;
  v1::WorkerEventBatch& events = *batch.mutable_worker_events();
  int64_t bytes = static_cast<int64_t>(first.worker_event().ByteSizeLong());
  *events.add_events() = std::move(*first.mutable_worker_event());
  while (!outbox.empty() && outbox.front().has_worker_event() &&
         events.events_size() < spec::kMaxWorkerEventsPerBatch) {
    const int64_t next = static_cast<int64_t>(outbox.front().worker_event().ByteSizeLong());
    if (bytes + next > spec::kMaxWorkerEventBatchBytes) break;
    bytes += next;
    *events.add_events() = std::move(*outbox.front().mutable_worker_event());
    outbox.pop_front();
  }
  return batch;
}

}  // namespace eb::agent
