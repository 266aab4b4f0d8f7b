#include "coordinator/scheduler/borrow_planner.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "coordinator/scheduler/drain_reason.h"

namespace eb::scheduler {
namespace {

bool Borrowable(const SchedulerNode& node) {
  return node.state == NodeState::kIdle && !node.held_by_us;
}

std::string WhyNot(const SchedulerNode& node) {
  if (node.held_by_us) return "already held by ebnccl";
  if (node.state == NodeState::kAllocated) return "holds a job";
  return NodeStateName(node.state);
}

}  // namespace

absl::StatusOr<BorrowPlan> PlanBorrow(const std::vector<BorrowCandidate>& candidates,
                                      const BorrowRequest& request) {
  if (request.nodes.empty() == (request.count == 0) || request.count < 0) {
    return absl::InvalidArgumentError("borrow: name the nodes or give a positive count, not both");
  }
  if (!(request.max_idle_share >= 0 && request.max_idle_share <= 1)) {
    return absl::InvalidArgumentError("borrow: max_idle_share must be in [0, 1]");
  }
  std::map<std::string, const BorrowCandidate*> by_name;
  int idle = 0, held = 0;
  for (const BorrowCandidate& candidate : candidates) {
    by_name[candidate.node.name] = &candidate;
    if (candidate.node.held_by_us) ++held;
    if (candidate.node.held_by_us || candidate.node.state == NodeState::kIdle) ++idle;
  }
  int room = std::max(0, static_cast<int>(std::floor(request.max_idle_share * idle)) - held);

  BorrowPlan plan;
  std::vector<const BorrowCandidate*> chosen;
  if (!request.nodes.empty()) {
    for (const std::string& name : request.nodes) {
      const auto found = by_name.find(name);
      if (found == by_name.end()) {
        plan.refused.push_back({OneLine(name, 128), "unknown to the scheduler"});
      } else if (!Borrowable(found->second->node)) {
        plan.refused.push_back({name, WhyNot(found->second->node)});
      } else {
        chosen.push_back(found->second);
      }
    }
  } else {
    for (const BorrowCandidate& candidate : candidates) {
      if (Borrowable(candidate.node)) chosen.push_back(&candidate);
    }
    // Oldest evidence first; never judged before any judged; then the name.
    auto key = [](const BorrowCandidate* c) {
      return std::make_tuple(c->last_evidence.has_value(),
                             c->last_evidence.value_or(absl::InfinitePast()), c->node.name);
    };
    std::sort(chosen.begin(), chosen.end(),
              [&](const auto* a, const auto* b) { return key(a) < key(b); });
    if (static_cast<int>(chosen.size()) > request.count) chosen.resize(request.count);
    plan.short_by = request.count - static_cast<int>(chosen.size());
  }
  for (const BorrowCandidate* candidate : chosen) {
    if (room > 0) {
      plan.borrow.push_back(candidate->node.name);
      --room;
    } else {
      plan.refused.push_back({candidate->node.name, "over the share of idle nodes"});
      if (request.count > 0) ++plan.short_by;
    }
  }
  return plan;
}

}  // namespace eb::scheduler
