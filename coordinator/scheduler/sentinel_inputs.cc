#include "coordinator/scheduler/sentinel_inputs.h"

#include <map>
#include <utility>

namespace eb::scheduler {

std::vector<SentinelNode> SentinelNodesFrom(const std::vector<SchedulerNode>& scheduler_nodes,
                                            const std::set<std::string>& ebnccl_nodes,
                                            const std::vector<NodeVerdictRecord>& verdicts,
                                            int rails) {
  // The latest evidence of each node; of two at the same instant, the worse
  // verdict (a node is not known good on a tie).
  std::map<std::string, const NodeVerdictRecord*> latest;
  for (const NodeVerdictRecord& record : verdicts) {
    if (record.verdict == validation::Verdict::kUntestable) continue;
    const NodeVerdictRecord*& best = latest[record.node];
    const bool healthy = record.verdict == validation::Verdict::kHealthy;
    if (best == nullptr || record.time > best->time || (record.time == best->time && !healthy)) {
      best = &record;
    }
  }
  std::vector<SentinelNode> nodes;
  for (const SchedulerNode& scheduler_node : scheduler_nodes) {
    if (!ebnccl_nodes.contains(scheduler_node.name)) continue;
    SentinelNode node;
    node.node = scheduler_node;
    const auto found = latest.find(scheduler_node.name);
    if (found == latest.end()) {
      node.rail_evidence.assign(rails, std::nullopt);
    } else {
      node.rail_evidence.assign(rails, found->second->time);
      // A suspect verdict dates the evidence but is not trusted as the
      // node's verdict: only a confirmed healthy one makes a partner.
      if (found->second->confidence == validation::Confidence::kConfirmed) {
        node.last_verdict = found->second->verdict;
      }
    }
    nodes.push_back(std::move(node));
  }
  return nodes;
}

}  // namespace eb::scheduler
