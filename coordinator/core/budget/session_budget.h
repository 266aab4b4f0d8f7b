#pragma once

// The budget of one agent session (issue 32, item 1): what a node may send
// the coordinator, in items (a message, or each event of a batch: the work
// the one event loop does for it) and in bytes, each a token bucket. The
// values and their arithmetic are in docs/SECURITY.md, "Per-node budget".
// Pure: the caller passes the time; one owner at a time (the session's
// reactor, whose reads gRPC serializes).

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "coordinator/core/budget/token_bucket.h"
#include "ebnccl/v1/agent.pb.h"

namespace eb::coordinator {

struct SessionBudgetLimits {
  // Items a second, sustained, and at once. The burst holds every event of
  // a whole test of 16 ranks at the most sizes a test may have (16 x
  // (10,000 + 6) = 160,096), so an honest node never waits for the refill.
  // Settable (coordinator.toml [limits], CONFIG.md): int for the reader.
  int items_per_second = 20'000;
  int item_burst = 200'000;
  // Bytes a second, sustained, and at once: 512 log pages of 1 MiB (twice
  // the 256 log requests that may wait at once) back to back.
  int64_t bytes_per_second = int64_t{128} << 20;
  int64_t byte_burst = int64_t{512} << 20;
};

// What one message costs in items: 1, or the number of events of a
// WorkerEventBatch (at least 1): a batch of 1,024 events is 1,024 calls
// into the test manager, not one.
int64_t SessionMessageItems(const ebnccl::v1::AgentMessage& message);

class SessionBudget {
 public:
  SessionBudget(const SessionBudgetLimits& limits, absl::Time now);

  // Charges one message of `items` items and `bytes` bytes at `now`. OK, or
  // RESOURCE_EXHAUSTED naming what was exceeded ("session budget: more than
  // 200000 messages or events at once, or 20000 a second, ..."); once
  // exceeded it stays exceeded (the session is to be ended, not throttled:
  // throttling would hold the flood in the coordinator's memory).
  absl::Status Charge(int64_t items, size_t bytes, absl::Time now);

  // Items and bytes charged so far (for the audit record).
  uint64_t messages() const { return messages_; }
  uint64_t items() const { return items_charged_; }
  uint64_t bytes() const { return bytes_charged_; }

 private:
  SessionBudgetLimits limits_;
  absl::Time opened_;
  TokenBucket items_;
  TokenBucket bytes_;
  absl::Status exceeded_;
  uint64_t messages_ = 0;
  uint64_t items_charged_ = 0;
  uint64_t bytes_charged_ = 0;
};

}  // namespace eb::coordinator
