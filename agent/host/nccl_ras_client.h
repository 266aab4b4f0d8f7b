#pragma once

// The socket side of a query to NCCL's RAS service on this host
// (agent/core/nccl_ras.h has the protocol and what is kept). Nothing here
// blocks past the deadline: a non-blocking connect and reads under poll(2),
// all within NcclRasLimits::deadline.

#include <atomic>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "agent/core/nccl_ras.h"

namespace eb::agent {

// Connects to 127.0.0.1:`port`, sends NcclRasRequest(limits) and reads until
// the server closes, max_text_bytes + kNcclRasReadSlack bytes came, or the
// deadline passed. Blocks the calling thread for at most limits.deadline.
NcclRasExchange ExchangeWithNcclRas(int port, const NcclRasLimits& limits);

// Runs each query on its own thread, so that the agent's executor never
// waits; `done` is called on that thread. The destructor joins them (each
// ends within its deadline).
class NcclRasClient {
 public:
  explicit NcclRasClient(NcclRasLimits limits = {}) : limits_(limits) {}
  ~NcclRasClient();
  NcclRasClient(const NcclRasClient&) = delete;
  NcclRasClient& operator=(const NcclRasClient&) = delete;

  void Query(int port, std::function<void(NcclRasExchange)> done);

 private:
  struct Running {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> finished;
  };
  const NcclRasLimits limits_;
  absl::Mutex mu_;
  std::vector<Running> running_ ABSL_GUARDED_BY(mu_);
};

}  // namespace eb::agent
