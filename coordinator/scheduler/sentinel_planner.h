#pragma once

// The sentinel's planner (issue 30, part 3): which idle nodes to borrow next
// so that every node, and every rail of it, is probed at least once per
// period. Each probe borrows a pair: the node whose evidence is oldest and a
// partner known good, so that a failure points at the node probed. Never a
// node that holds a job, never more than a share of the idle nodes held at
// once. Pure: the caller passes `now` and what it knows; nothing is kept
// between calls (the nodes ebnccl holds say which probes are in flight).
// Any thread.

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "coordinator/scheduler/scheduler_types.h"
#include "coordinator/validation/verdict.h"

namespace eb::scheduler {

struct SentinelPolicy {
  // Every (node, rail) probed at least once per period.
  absl::Duration period = absl::Hours(24);
  // A node is due once its oldest evidence is this old: the rest of the
  // period is the slack to find it idle (at most `period`).
  absl::Duration refresh_after = absl::Hours(20);
  // At most this share of the idle nodes (ours counted as idle) held by
  // ebnccl at once, in flight probes included; rounded down.
  double max_idle_share = 0.10;
  // How long one probe holds its pair (the scheduler job's time limit).
  absl::Duration probe_duration = absl::Seconds(60);
  // When nothing due could be borrowed (no idle time, no room, no
  // partner), look again this soon.
  absl::Duration retry_after = absl::Minutes(1);
  // With no known-good partner idle, two due nodes probe each other: a pass
  // clears both, a failure only says "one of the two" (the validation's
  // localizer then has a pair of suspects). Off: such a node waits.
  bool pair_unknown_nodes = true;
};

struct SentinelNode {
  SchedulerNode node;
  // When each rail of the node was last judged (index = rail); nullopt:
  // never. A probe tests every rail of its pair; a validation limited to
  // some rails leaves the others as old as they were.
  std::vector<std::optional<absl::Time>> rail_evidence;
  // The node's last verdict, if any: healthy (and no older than the period)
  // makes it a known-good partner.
  std::optional<validation::Verdict> last_verdict;
};

struct SentinelProbe {
  std::string node;     // the due node, oldest evidence first
  std::string partner;  // known good, unless partner_known_good is false
  bool partner_known_good = true;
  // The node's oldest rail evidence (nullopt: never judged).
  std::optional<absl::Time> oldest_evidence;
};

struct SentinelWait {
  std::string node;
  std::string why;  // "holds a job", "over the share of idle nodes", "no idle partner", ...
};

struct SentinelPlan {
  std::vector<SentinelProbe> probes;  // borrow each pair now, in this order
  std::vector<SentinelWait> waiting;  // due and not probed now, oldest first
  // When to call again (at the latest): the next time a node falls due, or
  // now + retry_after while a due node waits.
  absl::Time next_look;
};

// The probes to start at `now`. A node is due when any of its rails has no
// evidence or evidence at least refresh_after old; it is probed only when
// the scheduler says idle and it is not already held by ebnccl. Its partner
// is an idle node, not held, whose last verdict is healthy and whose
// oldest evidence is younger than the period, the oldest such first (so
// the pair refreshes both); ties by name. INVALID_ARGUMENT for a policy
// out of range (naming the field), a node listed twice or a node with no
// rails.
absl::StatusOr<SentinelPlan> PlanSentinel(const std::vector<SentinelNode>& nodes,
                                          const SentinelPolicy& policy, absl::Time now);

// The node's oldest rail evidence; nullopt if a rail was never judged.
std::optional<absl::Time> OldestEvidence(const SentinelNode& node);

}  // namespace eb::scheduler
