#pragma once

// A view of a RendezvousStore with every key under a prefix, so that a
// second communicator of the same test (a rail's, TestSpec.split_rails)
// bootstraps through the same per-test KV without meeting the first one's
// keys: Gloo's pair addresses and NCCL's unique ID are keyed by rank, and
// rank 0 of rail 3 is not rank 0 of the test.

#include <string>
#include <utility>
#include <vector>

#include "common/transport/rendezvous_store.h"

namespace eb::transport {

class PrefixedStore final : public RendezvousStore {
 public:
  // `inner` must outlive this view.
  PrefixedStore(RendezvousStore& inner, std::string prefix)
      : inner_(inner), prefix_(std::move(prefix)) {}

  absl::Status Set(const std::string& key, const std::string& value) override {
    return inner_.Set(prefix_ + key, value);
  }

  absl::StatusOr<std::vector<std::string>> Wait(const std::vector<std::string>& keys,
                                                absl::Duration timeout) override {
    return inner_.Wait(Prefixed(keys), timeout);
  }

  absl::StatusOr<std::vector<std::string>> WaitSlice(const std::vector<std::string>& keys,
                                                     ValueSlice slice,
                                                     absl::Duration timeout) override {
    return inner_.WaitSlice(Prefixed(keys), slice, timeout);
  }

 private:
  std::vector<std::string> Prefixed(const std::vector<std::string>& keys) const {
    std::vector<std::string> prefixed;
    prefixed.reserve(keys.size());
    for (const std::string& key : keys) prefixed.push_back(prefix_ + key);
    return prefixed;
  }

  RendezvousStore& inner_;
  const std::string prefix_;
};

}  // namespace eb::transport
