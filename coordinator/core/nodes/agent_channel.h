#pragma once

// The coordinator's handle on one agent's session stream. Implemented by the
// gRPC Session reactor; faked in unit tests. Keeps the core free of grpcpp
// (STYLE.md rule 8).

#include <string>

#include "absl/status/status.h"
#include "ebnccl/v1/agent.pb.h"

namespace eb::coordinator {

class AgentChannel {
 public:
  virtual ~AgentChannel() = default;
  // Queues `message` for the agent. Thread-safe, never blocks; dropped
  // silently once the session has ended (the session's end is reported
  // separately).
  virtual void Send(const ebnccl::v1::CoordinatorMessage& message) = 0;
  // Ends the session with `status` after queued messages are written.
  // Thread-safe, idempotent.
  virtual void Close(const absl::Status& status) = 0;
  // Peer address for display, e.g. "ipv4:10.0.0.2:51234".
  virtual std::string Peer() const = 0;
};

}  // namespace eb::coordinator
