#pragma once

// Which nodes to borrow from the scheduler for a validation or a sentinel
// probe (issue 30): never a node that holds a job, never more than a share
// of the idle nodes, oldest evidence first. Pure; any thread.

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "coordinator/scheduler/scheduler_types.h"

namespace eb::scheduler {

struct BorrowCandidate {
  SchedulerNode node;
  // When ebnccl last judged it; nullopt: never (then it goes first).
  std::optional<absl::Time> last_evidence;
};

struct BorrowRequest {
  // Either the nodes by name, or a count of any idle ones (not both).
  std::vector<std::string> nodes;
  int count = 0;
  // At most this share of the idle nodes (those held by us count as idle:
  // they are borrowed, not a tenant's) held by ebnccl at once, counting the
  // ones it holds already.
  double max_idle_share = 1.0;
};

struct BorrowRefusal {
  std::string node;
  std::string why;  // "holds a job", "drained", "unknown to the scheduler", ...
};

struct BorrowPlan {
  std::vector<std::string> borrow;  // in the order chosen
  std::vector<BorrowRefusal> refused;
  // A count not met: how many fewer than asked (for want of idle nodes or
  // of share).
  int short_by = 0;
};

// The plan for `request` over the scheduler's nodes. A named node that
// holds a job, is drained, down, unknown to the scheduler or already held by
// us is refused by name; idle nodes over the share are refused with why
// "over the share of idle nodes". INVALID_ARGUMENT for both or neither of
// nodes and count, a negative count, or a share outside [0, 1].
absl::StatusOr<BorrowPlan> PlanBorrow(const std::vector<BorrowCandidate>& candidates,
                                      const BorrowRequest& request);

}  // namespace eb::scheduler
