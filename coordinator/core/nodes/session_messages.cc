#include "coordinator/core/nodes/session_messages.h"

#include "absl/strings/str_cat.h"
#include "common/spec/limits.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

absl::Status HandleSessionMessage(const SessionMessageTargets& targets, uint64_t session_id,
                                  const std::string& node_name, const v1::AgentMessage& message) {
  switch (message.message_case()) {
    case v1::AgentMessage::kHeartbeat:
      (void)targets.registry.Heartbeat(session_id);
      return absl::OkStatus();
    case v1::AgentMessage::kWorkerEvent:
      targets.tests.OnWorkerEvent(node_name, message.worker_event());
      return absl::OkStatus();
    case v1::AgentMessage::kWorkerEvents: {
      const auto& events = message.worker_events().events();
      if (events.size() > spec::kMaxWorkerEventsPerBatch) {
        return absl::InvalidArgumentError(absl::StrCat("worker_events.events: ", events.size(),
                                                       " events in one message, at most ",
                                                       spec::kMaxWorkerEventsPerBatch));
      }
      // One by one, in order, exactly as if each had come alone: an event
      // that ends its test leaves the later ones for a test that is no
      // longer running, which ignores them.
      for (const v1::WorkerEvent& event : events) targets.tests.OnWorkerEvent(node_name, event);
      return absl::OkStatus();
    }
    case v1::AgentMessage::kWorkersStopped:
      targets.tests.OnWorkersStopped(node_name, message.workers_stopped());
      return absl::OkStatus();
    case v1::AgentMessage::kLogContent:
      if (!targets.logs.Complete(node_name, message.log_content())) {
        // Not this node's request: refused (counted, audited by the hook).
        // The session goes on; the node asked may still answer.
        spdlog::warn("node={}: answered log request {} sent to another node; refused", node_name,
                     message.log_content().request_id());
      }
      return absl::OkStatus();
    default:
      // RegisterAgent is the caller's (the first message of a session).
      break;
  }
  spdlog::warn("node={}: unknown session message {}; ignored", node_name,
               static_cast<int>(message.message_case()));
  return absl::OkStatus();
}

}  // namespace eb::coordinator
