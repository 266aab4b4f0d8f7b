#pragma once

// What the agent's session tests build and read of worker events.

#include <vector>

#include "ebnccl/v1/agent.pb.h"

namespace eb::agent::test {

// The ranks of a worker_event or a worker_events batch, in order.
inline std::vector<int> Ranks(const ebnccl::v1::AgentMessage& message) {
  std::vector<int> ranks;
  if (message.has_worker_event()) ranks.push_back(message.worker_event().rank());
  for (const ebnccl::v1::WorkerEvent& event : message.worker_events().events()) {
    ranks.push_back(event.rank());
  }
  return ranks;
}

}  // namespace eb::agent::test
