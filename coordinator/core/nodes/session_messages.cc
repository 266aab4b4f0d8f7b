#include "coordinator/core/nodes/session_messages.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/spec/limits.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

namespace {

// Logs `line` about `node` unless the targets' limiter leaves it out.
void WarnRefused(const SessionMessageTargets& targets, const std::string& node, const char* reason,
                 const std::string& line) {
  const std::optional<std::string> admitted =
      RateLimitedLine(targets.refused_log, absl::StrCat(node, " ", reason), targets.now, line);
  if (admitted) spdlog::warn("node={}: {}", node, *admitted);
}

}  // namespace

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
        WarnRefused(targets, node_name, "log answer",
                    absl::StrCat("answered log request ", message.log_content().request_id(),
                                 " sent to another node; refused"));
      }
      return absl::OkStatus();
    default:
      // RegisterAgent is the caller's (the first message of a session).
      break;
  }
  WarnRefused(targets, node_name, "unknown message",
              absl::StrCat("unknown session message ", static_cast<int>(message.message_case()),
                           "; ignored"));
  return absl::OkStatus();
}

}  // namespace eb::coordinator
