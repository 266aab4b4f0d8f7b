#pragma once

// The wire form of a rendezvous wait's reply, owned here and nowhere else:
// the worker asks for it (SetWaitSlice), the coordinator's store builds it
// (WaitReplyWriter, SetWaitReplyValues), the agent relays the reply
// untouched, and the worker reads it (WaitReplyValues). A
// RendezvousWaitReply (agent.proto) carries its values in one of two forms:
//   - one value per key: `values`, in the order of the requested keys. Every
//     unsliced wait, and every reply of a coordinator that predates
//     RendezvousSlice.concatenated (it ignores the field);
//   - concatenated: `concatenated_values`, every key's slice one after
//     another, keys x slice length bytes. A sliced wait that asks for it
//     (issue 15: one buffer per reply where a 1,024-rank Gloo mesh made a
//     string per peer, a million per test).
// Pure functions on the generated messages; any thread.

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/transport/rendezvous_store.h"
#include "ebnccl/v1/agent.pb.h"

namespace eb::spec {

// Asks, in `request`, for each value cut to `slice` and for the slices
// concatenated (the worker; a coordinator that predates the field answers
// one value per key, which WaitReplyValues reads too).
void SetWaitSlice(const transport::ValueSlice& slice, ebnccl::v1::RendezvousWaitRequest* request);

// True when `request`'s reply is to be concatenated.
bool WantsConcatenatedReply(const ebnccl::v1::RendezvousWaitRequest& request);

// The values of one wait's reply as the coordinator's store gathers them,
// in the order of the keys, in the form the request asked for. The store
// hands them to the service as Take() returns them, which puts them in the
// reply with SetWaitReplyValues.
class WaitReplyWriter {
 public:
  // `concatenated`: WantsConcatenatedReply of the request. `keys` values of
  // `value_bytes` each (the slice's length) are reserved for.
  WaitReplyWriter(bool concatenated, size_t keys, size_t value_bytes);

  // The next key's value (or its slice).
  void Add(absl::string_view value);
  // One value per key, or, concatenated, a single value holding every
  // slice in the order of the keys. Once.
  std::vector<std::string> Take() &&;

 private:
  const bool concatenated_;
  std::vector<std::string> values_;
};

// Puts `values`, as WaitReplyWriter::Take returned them for a request whose
// WantsConcatenatedReply was `concatenated`, into `reply`.
void SetWaitReplyValues(std::vector<std::string> values, bool concatenated,
                        ebnccl::v1::RendezvousWaitReply* reply);

// The values of a reply, one per key in the order of the keys, as the
// worker's rendezvous store returns them. The reply comes from the
// coordinator through the agent and is checked like any input. A sliced
// wait (`slice` set; it asked for its slices concatenated) takes either
// form: `concatenated_values` of exactly keys x slice->length bytes, or,
// from a coordinator that predates the field, one value of slice->length
// bytes per key. Without `slice`, one value per key. INTERNAL, naming the
// field, for any other shape.
absl::StatusOr<std::vector<std::string>> WaitReplyValues(
    const ebnccl::v1::RendezvousWaitReply& reply, size_t keys, const transport::ValueSlice* slice);

}  // namespace eb::spec
