#pragma once

// Coalescing of worker events on the agent's session (issue 15): all ranks
// of a node reach each phase (registered, joining, joined, each size,
// finished) at about the same moment, so the session writer sends the
// events queued together as one WorkerEventBatch. A 1,024-node test then
// costs the coordinator one session message per node and phase, not one
// per rank; order is kept, and every other message goes alone, in its
// place.

#include <deque>

#include "ebnccl/v1/agent.pb.h"

namespace eb::agent {

// Removes and returns the next message to write from the front of the
// non-empty `outbox`. A run of consecutive worker_event messages at the
// front becomes one worker_events batch, of at most
// spec::kMaxWorkerEventsPerBatch events and (beyond its first event) at
// most spec::kMaxWorkerEventBatchBytes; a run of one stays a worker_event
// as it was. Any other message is returned as it is.
ebnccl::v1::AgentMessage TakeNextMessage(std::deque<ebnccl::v1::AgentMessage>& outbox);

}  // namespace eb::agent
