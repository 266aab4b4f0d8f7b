#include "coordinator/scheduler/scheduler_types.h"

namespace eb::scheduler {

// Each switch names every value (no default:), so -Wswitch names a new one.

std::string NodeStateName(NodeState state) {
  switch (state) {
    case NodeState::kIdle:
      return "idle";
    case NodeState::kAllocated:
      return "allocated";
    case NodeState::kDraining:
      return "draining";
    case NodeState::kDrained:
      return "drained";
    case NodeState::kDown:
      return "down";
    case NodeState::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::string ActionKindName(ActionKind kind) {
  switch (kind) {
    case ActionKind::kDrain:
      return "drain";
    case ActionKind::kResume:
      return "resume";
    case ActionKind::kLeave:
      return "leave";
  }
  return "leave";
}

std::string LeaveWhyName(LeaveWhy why) {
  switch (why) {
    case LeaveWhy::kNone:
      return "none";
    case LeaveWhy::kAlreadyDrained:
      return "already drained";
    case LeaveWhy::kOperatorDrained:
      return "drained by an operator";
    case LeaveWhy::kSchedulerUnavailable:
      return "down or unknown to the scheduler";
    case LeaveWhy::kSuspectOnly:
      return "suspect only";
    case LeaveWhy::kAwaitingConfirmations:
      return "awaiting confirmations";
    case LeaveWhy::kAwaitingPasses:
      return "awaiting passes";
    case LeaveWhy::kRepeatOffender:
      return "repeat offender";
    case LeaveWhy::kBlastRadiusGuard:
      return "blast-radius guard";
    case LeaveWhy::kUnfitNotDrained:
      return "unfit, not drained by policy";
    case LeaveWhy::kFleetWideSlowdown:
      return "fleet-wide slowdown";
    case LeaveWhy::kNoEvidence:
      return "no evidence";
    case LeaveWhy::kStaleEvidence:
      return "stale evidence";
  }
  return "none";
}

std::string FindingKindName(FindingKind kind) {
  switch (kind) {
    case FindingKind::kFleetWideSlowdown:
      return "fleet-wide slowdown";
    case FindingKind::kFleetBelowExpected:
      return "fleet below expected";
    case FindingKind::kUnknownToScheduler:
      return "unknown to the scheduler";
    case FindingKind::kUnknownToEbnccl:
      return "unknown to ebnccl";
  }
  return "unknown";
}

}  // namespace eb::scheduler
