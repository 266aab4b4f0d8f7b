#pragma once

// The values of a RendezvousWaitReply as the worker's rendezvous store
// returns them: one per key, in the order of the keys. The reply comes
// from the coordinator through the agent and is checked like any input.

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/transport/rendezvous_store.h"
#include "ebnccl/v1/agent.pb.h"

namespace eb::worker {

// A sliced wait asks for its slices concatenated (RendezvousSlice
// .concatenated) and takes either form: `concatenated_values` of exactly
// keys x slice->length bytes, or, from a coordinator that predates the
// field, one value per key. Without `slice`, one value per key. INTERNAL,
// naming the field, for any other shape.
absl::StatusOr<std::vector<std::string>> WaitReplyValues(
    const ebnccl::v1::RendezvousWaitReply& reply, size_t keys, const transport::ValueSlice* slice);

}  // namespace eb::worker
