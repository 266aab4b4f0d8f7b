#pragma once

// Agent sessions open without having registered yet (P2-4f3, issue 32 item
// 1): at most spec::kMaxUnregisteredSessions in all, and at most
// spec::kMaxUnregisteredSessionsPerHost from one peer host, so that one
// compromised node cannot take every place and keep the fleet's agents from
// reconnecting (it held all 4,096 with a session each re-opened as the
// register deadline ended the last). Thread-safe: admitted on gRPC's
// threads, released on the executor.

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace eb::coordinator {

class UnregisteredSessions {
 public:
  UnregisteredSessions(int max_total, int max_per_host)
      : max_total_(max_total), max_per_host_(max_per_host) {}

  // Takes a place for a new session from `host`; RESOURCE_EXHAUSTED naming
  // the bound when there is none.
  absl::Status Admit(const std::string& host);
  // Gives back a place `host` took (the session registered or ended).
  void Release(const std::string& host);

  int open() const;

 private:
  const int max_total_;
  const int max_per_host_;
  mutable absl::Mutex mu_;
  int total_ ABSL_GUARDED_BY(mu_) = 0;
  // Only hosts with a place taken: at most max_total entries.
  absl::flat_hash_map<std::string, int> per_host_ ABSL_GUARDED_BY(mu_);
};

// The host of a gRPC peer string ("ipv4:10.0.0.7:51234" gives
// "ipv4:10.0.0.7"): what a node's sessions share, whatever their ports.
std::string PeerHostOf(const std::string& peer);

}  // namespace eb::coordinator
