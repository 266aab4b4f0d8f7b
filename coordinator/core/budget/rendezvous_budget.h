#pragma once

// What one node may ask of the rendezvous (issue 32, item 1): its agent's
// RendezvousSet and RendezvousWait calls, unary calls beside its session,
// counted per caller in one token bucket: per node (its certificate's
// name) with TLS, per peer address without (no name can be trusted then,
// but one address cannot flood the loop for every other). The values and their arithmetic are
// in docs/SECURITY.md, "Per-node budget". Pure: the caller passes the time;
// not thread-safe (the caller holds a mutex).

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "coordinator/core/budget/token_bucket.h"

namespace eb::coordinator {

struct RendezvousBudgetLimits {
  // Calls at once: 8 for each of the most worker slots a node may have
  // (1,024), so that every rank of the largest node may set its keys and
  // keep its (at most 4) waits open in the same moment.
  int call_burst = 8 * 1024;
  // Calls a second, sustained: 4 for each of 1,024 ranks.
  int calls_per_second = 4 * 1024;
};

// Who a rendezvous call is charged to: "node <identity>" with TLS, else
// "address <host>" of gRPC's peer string ("ipv4:10.0.0.7:51234" gives
// "address 10.0.0.7", "ipv6:[::1]:5" gives "address [::1]"; another form
// is kept whole).
std::string RendezvousCaller(bool tls, const std::string& identity, const std::string& peer);

class RendezvousBudget {
 public:
  // Nodes tracked one by one; beyond, nodes share one bucket (a node is a
  // certificate's name: this bounds what many of them can make us hold).
  static constexpr size_t kMaxNodes = 4096;

  explicit RendezvousBudget(RendezvousBudgetLimits limits = {}) : limits_(limits) {}

  // Charges one call of `caller` (RendezvousCaller) at `now`: OK, or
  // RESOURCE_EXHAUSTED "rendezvous budget: node N made more than 8192
  // rendezvous calls at once, or 4096 a second".
  absl::Status Charge(const std::string& caller, absl::Time now);

 private:
  RendezvousBudgetLimits limits_;
  std::map<std::string, TokenBucket> buckets_;
};

}  // namespace eb::coordinator
