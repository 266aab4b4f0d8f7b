#pragma once

// The per-test key/value rendezvous (ARCHITECTURE.md, path of a test, step 4):
// Gloo exchanges its pair addresses through it and NCCL its 128-byte unique
// ID. In production it is backed by the coordinator (through the agent); in
// tests by an in-memory map.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

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
};

}  // namespace eb::transport
