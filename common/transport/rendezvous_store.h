#pragma once

// The per-test key/value rendezvous (ARCHITECTURE.md, path of a test, step 4):
// Gloo exchanges its pair addresses through it and NCCL its 128-byte unique
// ID. In production it is backed by the coordinator (through the agent); in
// tests by an in-memory map.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/transport/value_slice.h"

namespace eb::transport {

class RendezvousStore {
 public:
  virtual ~RendezvousStore() = default;

  // Stores `value` under `key` (overwriting). UNAVAILABLE when the backing
  // service cannot be reached; ABORTED when the test has ended. Thread-safe.
  virtual absl::Status Set(const std::string& key, const std::string& value) = 0;

  // Blocks until every key exists and returns their values in key order.
  // DEADLINE_EXCEEDED after `timeout` (the message lists the missing keys
  // when known); ABORTED when the test has ended. Thread-safe.
  virtual absl::StatusOr<std::vector<std::string>> Wait(const std::vector<std::string>& keys,
                                                        absl::Duration timeout) = 0;

  // Wait, returning only `slice` of each value: a Gloo rank reads its own
  // entry of every peer's address table in one call (issue 15).
  // FAILED_PRECONDITION when a value is shorter than the slice's end. The
  // coordinator-backed store cuts the values on the coordinator, so only
  // the slices travel; this default cuts them here.
  virtual absl::StatusOr<std::vector<std::string>> WaitSlice(const std::vector<std::string>& keys,
                                                             ValueSlice slice,
                                                             absl::Duration timeout) {
    absl::StatusOr<std::vector<std::string>> values = Wait(keys, timeout);
    if (!values.ok()) return values;
    return CutSlices(keys, *std::move(values), slice);
  }

 protected:
  // Cuts each of `values` (of `keys`) to `slice` (CutSlice).
  static absl::StatusOr<std::vector<std::string>> CutSlices(const std::vector<std::string>& keys,
                                                            std::vector<std::string> values,
                                                            ValueSlice slice) {
    for (size_t i = 0; i < values.size(); ++i) {
      absl::StatusOr<absl::string_view> cut =
          CutSlice(i < keys.size() ? keys[i] : "", values[i], slice);
      if (!cut.ok()) return cut.status();
      values[i] = std::string(*cut);
    }
    return values;
  }
};

}  // namespace eb::transport
