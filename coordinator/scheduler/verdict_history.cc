#include "coordinator/scheduler/verdict_history.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace eb::scheduler {
namespace {

using validation::Confidence;
using validation::Verdict;

// What one verdict means to the hysteresis rules.
enum class Weight { kIgnored, kPass, kBad, kUnfit };

Weight WeightFor(const NodeVerdictRecord& record, const SchedulerPolicy& policy,
                 const std::set<std::string>& slowdowns) {
  switch (record.verdict) {
    case Verdict::kHealthy:
      // Judged against a fleet median that was itself below the figure:
      // as good as peers that all fell short, which resumes no one.
      if (!record.fleet_below_expected.empty()) return Weight::kIgnored;
      return Weight::kPass;
    case Verdict::kDegraded:
      // Slow like most of the fleet in that validation: the fleet's finding.
      if (slowdowns.count(record.validation_id) > 0) return Weight::kIgnored;
      return Weight::kBad;
    case Verdict::kFailed:
      return Weight::kBad;
    case Verdict::kUnfit:
      // A preflight fact; it drains only where the policy says so.
      return policy.drain_unfit ? Weight::kBad : Weight::kUnfit;
    case Verdict::kUntestable:
      // Infrastructure, or no partner could judge it: never a hardware fact,
      // neither bad nor a pass.
      return Weight::kIgnored;
  }
  return Weight::kIgnored;
}

bool Judged(Verdict verdict) {
  return verdict == Verdict::kHealthy || verdict == Verdict::kDegraded ||
         verdict == Verdict::kFailed;
}

}  // namespace

std::vector<FleetSlowdown> FindFleetSlowdowns(const std::vector<NodeVerdictRecord>& verdicts,
                                              const SchedulerPolicy& policy, int fleet_size) {
  // validation id -> node -> degraded; a node named twice in one validation
  // counts once (degraded if either record says so).
  std::map<std::string, std::map<std::string, bool>> judged;
  std::map<std::string, std::string> below;  // validation id -> its finding
  for (const NodeVerdictRecord& record : verdicts) {
    if (!record.fleet_below_expected.empty()) {
      below.emplace(record.validation_id, record.fleet_below_expected);
    }
    if (!Judged(record.verdict)) continue;
    bool& slow = judged[record.validation_id][record.node];
    slow = slow || record.verdict == Verdict::kDegraded;
  }
  std::vector<FleetSlowdown> slowdowns;
  for (const auto& [id, nodes] : judged) {
    FleetSlowdown slowdown{id, static_cast<int>(nodes.size()), 0};
    for (const auto& entry : nodes) slowdown.slow += entry.second ? 1 : 0;
    slowdown.most_slow = slowdown.tested >= policy.fleet_slowdown_min_nodes &&
                         slowdown.tested >= policy.fleet_slowdown_min_coverage * fleet_size &&
                         slowdown.slow > policy.fleet_slowdown_share * slowdown.tested;
    if (auto found = below.find(id); found != below.end()) slowdown.below_expected = found->second;
    if (slowdown.most_slow || !slowdown.below_expected.empty()) {
      slowdowns.push_back(std::move(slowdown));
    }
  }
  return slowdowns;
}

NodeHistory SummarizeNode(std::vector<NodeVerdictRecord> verdicts, const SchedulerPolicy& policy,
                          const std::set<std::string>& slowdowns, absl::Time now) {
  // Oldest first; the validation id orders verdicts of the same time, so
  // the result never depends on the input's order.
  std::sort(verdicts.begin(), verdicts.end(), [](const auto& a, const auto& b) {
    return std::tie(a.time, a.validation_id) < std::tie(b.time, b.validation_id);
  });
  NodeHistory history;
  history.any = !verdicts.empty();
  const absl::Time window_start = now - policy.flap_window;
  bool in_bad_episode = false;
  bool episode_counted = false;
  for (const NodeVerdictRecord& record : verdicts) {
    if (record.verdict == Verdict::kUntestable) continue;  // says nothing of the node
    const Weight weight = WeightFor(record, policy, slowdowns);
    if (weight == Weight::kIgnored && record.verdict == Verdict::kHealthy) {
      history.latest_unproven_pass = true;  // a pass against a median below the figure
      continue;
    }
    history.latest_unproven_pass = false;
    history.latest_in_slowdown = weight == Weight::kIgnored;  // degraded, fleet slow
    if (weight == Weight::kIgnored) continue;
    history.latest_unfit = weight == Weight::kUnfit;
    if (weight == Weight::kUnfit) continue;
    if (weight == Weight::kPass) {
      ++history.passes;
      history.latest_pass = record;
      history.confirmed_bad = 0;
      history.latest_bad.reset();
      history.suspect_bad = false;
      in_bad_episode = false;
      continue;
    }
    // Bad: any bad observation, even a suspect one, restarts the count of
    // passes (resuming wants clean passes after the last doubt).
    history.passes = 0;
    history.latest_pass.reset();
    if (record.confidence == Confidence::kSuspect) {
      history.suspect_bad = true;
      continue;
    }
    const bool same_validation =
        history.latest_bad && history.latest_bad->validation_id == record.validation_id;
    if (!same_validation) ++history.confirmed_bad;
    history.latest_bad = record;
    // An episode counts when any of its bad verdicts is in the window (one
    // that began before the window and goes on into it counts too).
    if (!in_bad_episode) episode_counted = false;
    in_bad_episode = true;
    if (record.time >= window_start && !episode_counted) {
      ++history.bad_episodes_in_window;
      episode_counted = true;
    }
  }
  return history;
}

std::map<std::string, std::vector<NodeVerdictRecord>> ByNode(
    const std::vector<NodeVerdictRecord>& verdicts) {
  std::map<std::string, std::vector<NodeVerdictRecord>> by_node;
  for (const NodeVerdictRecord& record : verdicts) by_node[record.node].push_back(record);
  return by_node;
}

}  // namespace eb::scheduler
