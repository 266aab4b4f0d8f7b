#include "coordinator/scheduler/leave_out.h"

#include "absl/strings/str_cat.h"
#include "coordinator/scheduler/drain_reason.h"

namespace eb::scheduler {

std::map<std::string, std::string> NodesToLeaveOut(const std::vector<SchedulerNode>& nodes,
                                                   const std::vector<std::string>& names,
                                                   absl::string_view prefix,
                                                   absl::string_view scheduler) {
  std::map<std::string, const SchedulerNode*> by_name;
  for (const SchedulerNode& node : nodes) by_name.emplace(node.name, &node);
  std::map<std::string, std::string> out;
  for (const std::string& name : names) {
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      out[name] = absl::StrCat(scheduler, ": not a node of the scheduler (never guessed)");
      continue;
    }
    const SchedulerNode& node = *it->second;
    const bool ours = IsOurReason(node.reason, prefix);
    switch (node.state) {
      case NodeState::kIdle:
        break;
      case NodeState::kAllocated:
        if (!node.held_by_us) out[name] = absl::StrCat(scheduler, ": holds a job (allocated)");
        break;
      case NodeState::kDraining:
        out[name] = absl::StrCat(scheduler, ": holds a job (draining)");
        break;
      case NodeState::kDrained:
        if (!ours) {
          out[name] = absl::StrCat(
              scheduler, ": drained by an operator: ", OneLine(node.reason, kMaxReasonBytes));
        }
        break;
      case NodeState::kDown:
      case NodeState::kUnknown:
        out[name] = absl::StrCat(scheduler, ": ", NodeStateName(node.state),
                                 " (it may hold a job we cannot see)");
        break;
    }
  }
  return out;
}

}  // namespace eb::scheduler
