#pragma once

// What the sentinel's planner (sentinel_planner.h) is given, from what the
// coordinator has: the scheduler's nodes, the names of the nodes ebnccl can
// test (registered agents), and the verdict history (the same records the
// decision core reads). The first piece of wiring the sentinel into the
// scheduler service's tick (docs/DESIGN.md, "The sentinel"). Pure; any
// thread.

#include <map>
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
// yielded to a tenant job will be recorded the same way). Each rail is
// dated by the latest evidence that covered it (NodeVerdictRecord::rails:
// the rails its pair tests measured; every rail when the tests gave no
// per-rail result; none when its network was not judged), so a validation
// that measured some rails leaves the others as old as they were. The
// node's latest evidence is its last verdict if confirmed (a suspect one
// leaves last_verdict empty: never a known-good partner on it); of two at
// the same instant the worse counts.
// `node_rails`: a node's own rail count (its GPUs, as its agent reported
// them) where known and positive; `rails` for the others (a CPU/Gloo host:
// its network is one rail).
std::vector<SentinelNode> SentinelNodesFrom(const std::vector<SchedulerNode>& scheduler_nodes,
                                            const std::set<std::string>& ebnccl_nodes,
                                            const std::vector<NodeVerdictRecord>& verdicts,
                                            int rails,
                                            const std::map<std::string, int>& node_rails = {});

}  // namespace eb::scheduler
