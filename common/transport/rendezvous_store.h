#pragma once

// The per-test key/value rendezvous (ARCHITECTURE.md, path of a test, step 4):
// Gloo exchanges its pair addresses through it and NCCL its 128-byte unique
// ID. In production it is backed by the coordinator (through the agent); in
// tests by an in-memory map.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace eb::transport {

// Bytes [offset, offset + length) of a value.
struct ValueSlice {
  int64_t offset = 0;
  int64_t length = 0;
};

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
  // Cuts each of `values` (of `keys`) to `slice`.
  static absl::StatusOr<std::vector<std::string>> CutSlices(const std::vector<std::string>& keys,
                                                            std::vector<std::string> values,
                                                            ValueSlice slice) {
    const int64_t end = slice.offset + slice.length;
    for (size_t i = 0; i < values.size(); ++i) {
      if (slice.offset < 0 || slice.length < 0 || static_cast<int64_t>(values[i].size()) < end) {
        return absl::FailedPreconditionError(absl::StrCat(
            "rendezvous value of key '", i < keys.size() ? keys[i] : "", "' has ", values[i].size(),
            " bytes; the slice [", slice.offset, ", ", end, ") is past its end"));
      }
      values[i] =
          values[i].substr(static_cast<size_t>(slice.offset), static_cast<size_t>(slice.length));
    }
    return values;
  }
};

}  // namespace eb::transport
