#include "coordinator/scheduler/sentinel_planner.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "coordinator/scheduler/drain_reason.h"

namespace eb::scheduler {
namespace {

absl::Status CheckSentinelPolicy(const SentinelPolicy& policy) {
  if (policy.period <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("sentinel: period must be positive");
  }
  if (policy.refresh_after <= absl::ZeroDuration() || policy.refresh_after > policy.period) {
    return absl::InvalidArgumentError("sentinel: refresh_after must be in (0, period]");
  }
  if (!(policy.max_idle_share >= 0 && policy.max_idle_share <= 1)) {
    return absl::InvalidArgumentError("sentinel: max_idle_share must be in [0, 1]");
  }
  if (policy.probe_duration <= absl::ZeroDuration() || policy.probe_duration > policy.period) {
    return absl::InvalidArgumentError("sentinel: probe_duration must be in (0, period]");
  }
  if (policy.retry_after <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("sentinel: retry_after must be positive");
  }
  return absl::OkStatus();
}

bool Free(const SchedulerNode& node) { return node.state == NodeState::kIdle && !node.held_by_us; }

// What the planner knows of one node at `now`.
struct Entry {
  const SentinelNode* node = nullptr;
  std::optional<absl::Time> oldest;
  bool due = false;
  bool known_good = false;
  bool chosen = false;
};

// Never judged first, then the oldest evidence, then the name: the order
// of both the due nodes and the partners. (Called ~N log N times a tick:
// no copies.)
bool OlderEvidence(const Entry* a, const Entry* b) {
  if (a->oldest.has_value() != b->oldest.has_value()) return !a->oldest.has_value();
  if (a->oldest.has_value() && *a->oldest != *b->oldest) return *a->oldest < *b->oldest;
  return a->node->node.name < b->node->node.name;
}

// A node listed twice. The scheduler lists its nodes sorted, so one pass
// usually proves there is none; otherwise sorted names side by side (no
// allocation per node: this runs every tick over the whole fleet).
absl::Status CheckNoNodeTwice(const std::vector<SentinelNode>& nodes) {
  const bool sorted =
      std::adjacent_find(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) {
        return !(a.node.name < b.node.name);
      }) == nodes.end();
  if (sorted) return absl::OkStatus();
  std::vector<const std::string*> names;
  names.reserve(nodes.size());
  for (const SentinelNode& node : nodes) names.push_back(&node.node.name);
  std::sort(names.begin(), names.end(),
            [](const std::string* a, const std::string* b) { return *a < *b; });
  const auto twice =
      std::adjacent_find(names.begin(), names.end(),
                         [](const std::string* a, const std::string* b) { return *a == *b; });
  if (twice == names.end()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("sentinel: node ", OneLine(**twice, 128), " listed twice"));
}

// The first node of `list` (in its order) free to borrow, not chosen yet,
// other than `other`.
Entry* FirstFree(const std::vector<Entry*>& list, const Entry* other) {
  for (Entry* entry : list) {
    if (!entry->chosen && entry != other && Free(entry->node->node)) return entry;
  }
  return nullptr;
}

std::string WhyWaiting(const SchedulerNode& node) {
  if (node.state == NodeState::kAllocated) return "holds a job";
  return NodeStateName(node.state);
}

}  // namespace

std::optional<absl::Time> OldestEvidence(const SentinelNode& node) {
  std::optional<absl::Time> oldest;
  for (const std::optional<absl::Time>& rail : node.rail_evidence) {
    if (!rail.has_value()) return std::nullopt;
    if (!oldest.has_value() || *rail < *oldest) oldest = rail;
  }
  return oldest;
}

absl::StatusOr<SentinelPlan> PlanSentinel(const std::vector<SentinelNode>& nodes,
                                          const SentinelPolicy& policy, absl::Time now) {
  if (absl::Status status = CheckSentinelPolicy(policy); !status.ok()) return status;
  if (absl::Status names = CheckNoNodeTwice(nodes); !names.ok()) return names;
  std::vector<Entry> entries(nodes.size());
  int idle = 0, held = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const SentinelNode& node = nodes[i];
    if (node.rail_evidence.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("sentinel: node ", OneLine(node.node.name, 128), " has no rails"));
    }
    if (node.node.held_by_us) ++held;
    if (node.node.held_by_us || node.node.state == NodeState::kIdle) ++idle;
    Entry& entry = entries[i];
    entry.node = &node;
    entry.oldest = OldestEvidence(node);
    entry.due = !entry.oldest.has_value() || now - *entry.oldest >= policy.refresh_after;
    entry.known_good = Free(node.node) && entry.oldest.has_value() &&
                       now - *entry.oldest < policy.period &&
                       node.last_verdict == validation::Verdict::kHealthy;
  }
  int room = std::max(0, static_cast<int>(std::floor(policy.max_idle_share * idle)) - held);

  std::vector<Entry*> due, partners;
  SentinelPlan plan;
  plan.next_look = now + policy.period;
  for (Entry& entry : entries) {
    if (entry.due) {
      due.push_back(&entry);
    } else {
      plan.next_look = std::min(plan.next_look, *entry.oldest + policy.refresh_after);
    }
    if (entry.known_good) partners.push_back(&entry);
  }
  std::sort(due.begin(), due.end(), OlderEvidence);
  std::sort(partners.begin(), partners.end(), OlderEvidence);

  bool any_left = false;
  for (Entry* entry : due) {
    if (entry->chosen) continue;  // taken as a partner already
    const SchedulerNode& node = entry->node->node;
    if (node.held_by_us) {  // a probe in flight: its result will say
      any_left = true;
      continue;
    }
    if (!Free(node)) {
      plan.waiting.push_back({node.name, WhyWaiting(node)});
      continue;
    }
    Entry* partner = FirstFree(partners, entry);
    bool known_good = partner != nullptr;
    if (partner == nullptr && policy.pair_unknown_nodes) partner = FirstFree(due, entry);
    if (partner == nullptr) {
      plan.waiting.push_back({node.name, policy.pair_unknown_nodes ? "no idle partner"
                                                                   : "no known-good partner idle"});
      continue;
    }
    if (room < 2) {
      plan.waiting.push_back({node.name, "over the share of idle nodes"});
      continue;
    }
    entry->chosen = partner->chosen = true;
    room -= 2;
    plan.probes.push_back({node.name, partner->node->node.name, known_good, entry->oldest});
  }
  if (any_left || !plan.waiting.empty()) {
    plan.next_look = std::min(plan.next_look, now + policy.retry_after);
  }
  plan.next_look = std::max(plan.next_look, now);
  return plan;
}

}  // namespace eb::scheduler
