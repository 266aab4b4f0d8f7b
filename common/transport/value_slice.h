#pragma once

// A slice of a rendezvous value, and the one place that cuts it: the
// coordinator's store cuts the values a sliced wait asks for
// (coordinator/core/collective_tests/rendezvous_kv.cc), and a store without a coordinator
// cuts them itself (RendezvousStore::WaitSlice's default), so both refuse
// a value too short for the slice alike. Pure; any thread.

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace eb::transport {

// Bytes [offset, offset + length) of a value.
struct ValueSlice {
  int64_t offset = 0;
  int64_t length = 0;
};

// `slice` of `value` (stored under `key`), a view into `value`.
// FAILED_PRECONDITION naming the key and the slice when the slice has a
// negative offset or length, or ends past the value's end.
absl::StatusOr<absl::string_view> CutSlice(absl::string_view key, absl::string_view value,
                                           ValueSlice slice);

}  // namespace eb::transport
