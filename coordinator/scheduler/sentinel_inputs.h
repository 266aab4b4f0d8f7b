#pragma once

// What the sentinel's planner (sentinel_planner.h) is given, from what the
// coordinator has: the scheduler's nodes, the names of the nodes ebnccl can
// test (registered agents), and the verdict history (the same records the
// decision core reads). The first piece of wiring the sentinel into the
// scheduler service's tick (docs/DESIGN.md, "The sentinel"). Pure; any
// thread.

#include <set>
#include <string>
#include <vector>

#include "coordinator/scheduler/scheduler_types.h"
#include "coordinator/scheduler/sentinel_planner.h"

namespace eb::scheduler {

// One SentinelNode for each scheduler node that ebnccl can test (a node
// with no agent is never borrowed: nothing would probe it), in the
// scheduler's order, with `rails` rails. Evidence is a verdict that judged
// the node: healthy, degraded, failed or unfit, confirmed or suspect; an
// untestable verdict judged nothing and is not evidence (a probe that
// yielded to a tenant job will be recorded the same way). The node's
// latest evidence dates every rail and is its last verdict if confirmed (a
// suspect one leaves last_verdict empty: never a known-good partner on
// it); of two at the same instant the worse counts. A node verdict
// covers every rail its tests used, which today is all of them (per-rail
// evidence needs the report's rail results: not yet carried).
std::vector<SentinelNode> SentinelNodesFrom(const std::vector<SchedulerNode>& scheduler_nodes,
                                            const std::set<std::string>& ebnccl_nodes,
                                            const std::vector<NodeVerdictRecord>& verdicts,
                                            int rails);

}  // namespace eb::scheduler
