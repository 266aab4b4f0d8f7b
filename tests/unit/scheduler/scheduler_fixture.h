#pragma once

// Builders for the scheduler core's inputs. The clock is explicit: At(h) is
// h hours after a fixed instant, and kNow is the instant decisions run at.

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/scheduler/decision.h"

namespace eb::scheduler::testing {

inline const absl::Time kNow = absl::FromUnixSeconds(1796558400);  // 2026-12-06 12:00 UTC
inline absl::Time HoursAgo(double hours) { return kNow - absl::Hours(hours); }

inline SchedulerNode Node(std::string name, NodeState state = NodeState::kIdle,
                          std::string reason = "", std::string group = "") {
  SchedulerNode node;
  node.name = std::move(name);
  node.state = state;
  node.reason = std::move(reason);
  node.held_by_us = false;
  node.group = std::move(group);
  return node;
}

// `n` idle nodes n1..n<n> (20 by default: the guard allows 2); with
// `groups` > 0, node i is in group "g<i % groups>".
inline std::vector<SchedulerNode> Fleet(int n = 20, int groups = 0) {
  std::vector<SchedulerNode> nodes;
  for (int i = 1; i <= n; ++i) {
    nodes.push_back(Node("n" + std::to_string(i), NodeState::kIdle, "",
                         groups > 0 ? "g" + std::to_string(i % groups) : ""));
  }
  return nodes;
}

inline NodeVerdictRecord V(std::string node, validation::Verdict verdict, std::string id,
                           double hours_ago, std::string evidence = "rail 3 at 52% of expected",
                           validation::Confidence confidence = validation::Confidence::kConfirmed) {
  return NodeVerdictRecord{std::move(node),     verdict,
                           confidence,          std::move(id),
                           std::move(evidence), HoursAgo(hours_ago)};
}

inline NodeVerdictRecord Bad(std::string node, std::string id, double hours_ago) {
  return V(std::move(node), validation::Verdict::kDegraded, std::move(id), hours_ago);
}
inline NodeVerdictRecord Good(std::string node, std::string id, double hours_ago) {
  return V(std::move(node), validation::Verdict::kHealthy, std::move(id), hours_ago, "fine");
}

// The input with every scheduler node known to ebnccl.
inline DecisionInput Input(std::vector<SchedulerNode> nodes,
                           std::vector<NodeVerdictRecord> verdicts,
                           SchedulerPolicy policy = SchedulerPolicy()) {
  DecisionInput input;
  for (const SchedulerNode& node : nodes) input.ebnccl_nodes.push_back(node.name);
  input.scheduler_nodes = std::move(nodes);
  input.verdicts = std::move(verdicts);
  input.policy = std::move(policy);
  return input;
}

// The decision, which must succeed.
inline Decision MustDecide(const DecisionInput& input, absl::Time now = kNow) {
  absl::StatusOr<Decision> decision = Decide(input, now);
  if (!decision.ok())
    return Decision{{},
                    {{FindingKind::kFleetWideSlowdown, "", "",
                      "ERROR " + std::string(decision.status().message())}},
                    false};
  return *decision;
}

// The one action for `node`; a kLeave with why kNone and reason "none" if
// there is none.
inline Action ActionFor(const Decision& decision, const std::string& node) {
  for (const Action& action : decision.actions) {
    if (action.node == node) return action;
  }
  Action none;
  none.node = node;
  none.reason = "none";
  return none;
}

}  // namespace eb::scheduler::testing
