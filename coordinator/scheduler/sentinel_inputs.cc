#include "coordinator/scheduler/sentinel_inputs.h"

#include <algorithm>
#include <map>
#include <utility>

namespace eb::scheduler {

namespace {

// Whether `record` judged something and, if so, whether it covered `rail`.
bool Covers(const NodeVerdictRecord& record, int rail) {
  if (!record.rails) return true;  // every rail
  return std::find(record.rails->begin(), record.rails->end(), rail) != record.rails->end();
}

// Each rail's latest evidence among the node's judging verdicts.
std::vector<std::optional<absl::Time>> RailDates(
    const std::vector<const NodeVerdictRecord*>& records, int rails) {
  std::vector<std::optional<absl::Time>> dates(rails);
  for (const NodeVerdictRecord* record : records) {
    for (int rail = 0; rail < rails; ++rail) {
      if (!Covers(*record, rail)) continue;
      if (!dates[rail] || record->time > *dates[rail]) dates[rail] = record->time;
    }
  }
  return dates;
}

}  // namespace

std::vector<SentinelNode> SentinelNodesFrom(const std::vector<SchedulerNode>& scheduler_nodes,
                                            const std::set<std::string>& ebnccl_nodes,
                                            const std::vector<NodeVerdictRecord>& verdicts,
                                            int rails,
                                            const std::map<std::string, int>& node_rails) {
  // The latest evidence of each node; of two at the same instant, the worse
  // verdict (a node is not known good on a tie). And every judging verdict
  // of each node, for the rails' own dates.
  std::map<std::string, const NodeVerdictRecord*> latest;
  std::map<std::string, std::vector<const NodeVerdictRecord*>> judging;
  for (const NodeVerdictRecord& record : verdicts) {
    if (record.verdict == validation::Verdict::kUntestable) continue;
    judging[record.node].push_back(&record);
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
    const auto own = node_rails.find(scheduler_node.name);
    const int count = own != node_rails.end() && own->second > 0 ? own->second : rails;
    node.rail_evidence = RailDates(judging[scheduler_node.name], count);
    const auto found = latest.find(scheduler_node.name);
    // A suspect verdict dates the evidence but is not trusted as the node's
    // verdict: only a confirmed healthy one makes a partner.
    if (found != latest.end() && found->second->confidence == validation::Confidence::kConfirmed) {
      node.last_verdict = found->second->verdict;
    }
    nodes.push_back(std::move(node));
  }
  return nodes;
}

}  // namespace eb::scheduler
