#include "coordinator/scheduler/decision.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/scheduler/drain_reason.h"
#include "coordinator/scheduler/verdict_history.h"

namespace eb::scheduler {
namespace {

using validation::Verdict;

// Evidence as it goes into the audit log: one line, bounded like a reason.
Cause CauseOf(const NodeVerdictRecord& record) {
  return Cause{OneLine(record.validation_id, kMaxReasonBytes),
               OneLine(record.evidence, kMaxReasonBytes), record.time};
}

Action Leave(const SchedulerNode& node, LeaveWhy why, std::string text,
             const std::optional<NodeVerdictRecord>& cause = std::nullopt) {
  Action action;
  action.kind = ActionKind::kLeave;
  action.why = why;
  action.node = node.name;
  action.reason = std::move(text);
  if (cause) action.cause = CauseOf(*cause);
  action.node_has_job = node.state == NodeState::kAllocated || node.state == NodeState::kDraining;
  return action;
}

bool IsDrained(NodeState state) {
  return state == NodeState::kDrained || state == NodeState::kDraining;
}

// A drain of ours that still stands: Slurm keeps the reason on a drained
// node that went down too, so it still counts against the guard.
bool IsOurStandingDrain(const SchedulerNode& node, const SchedulerPolicy& policy) {
  return (IsDrained(node.state) || node.state == NodeState::kDown) &&
         IsOurReason(node.reason, policy.reason_prefix);
}

// A node drained by us: resume it, or say why not.
std::optional<Action> DecideOurs(const SchedulerNode& node, const NodeHistory& history,
                                 const SchedulerPolicy& policy) {
  if (!history.any) {
    return Leave(node, LeaveWhy::kNoEvidence,
                 "drained by ebnccl, but no verdict of it is known: left for a re-test");
  }
  if (history.passes == 0) {
    return Leave(node, LeaveWhy::kAlreadyDrained,
                 history.latest_unproven_pass
                     ? "drained by ebnccl; no pass since (its latest healthy verdict came from a "
                       "validation whose fleet was below its expected figure)"
                     : "drained by ebnccl; no pass since",
                 history.latest_bad);
  }
  if (history.bad_episodes_in_window >= policy.flaps_to_stay_drained) {
    Action action = Leave(
        node, LeaveWhy::kRepeatOffender,
        absl::StrFormat("repeat offender: %d bad episodes within %s; stays drained",
                        history.bad_episodes_in_window, absl::FormatDuration(policy.flap_window)),
        history.latest_pass);
    action.repeat_offender = true;
    return action;
  }
  if (history.passes < policy.passes_to_resume) {
    return Leave(
        node, LeaveWhy::kAwaitingPasses,
        absl::StrFormat("%d of %d passes to resume", history.passes, policy.passes_to_resume),
        history.latest_pass);
  }
  Action action =
      Leave(node, LeaveWhy::kNone,
            absl::StrFormat("passed %d validation(s) since its last bad verdict", history.passes),
            history.latest_pass);
  action.kind = ActionKind::kResume;
  return action;
}

// Whether the node's evidence asks for a drain, else why not (nullopt:
// nothing to say).
std::optional<Action> DecideBad(const SchedulerNode& node, const NodeHistory& history,
                                const SchedulerPolicy& policy, absl::Time now) {
  const bool fresh =
      history.latest_bad && history.latest_bad->time >= now - policy.evidence_max_age;
  if (fresh && history.confirmed_bad >= policy.confirmations_to_drain) {
    Action action = Leave(node, LeaveWhy::kNone, "", history.latest_bad);
    action.kind = ActionKind::kDrain;
    action.repeat_offender = history.bad_episodes_in_window >= policy.flaps_to_stay_drained;
    action.reason = DrainReason(policy.reason_prefix, history.latest_bad->validation_id,
                                history.latest_bad->evidence, action.repeat_offender);
    return action;
  }
  if (fresh) {
    return Leave(node, LeaveWhy::kAwaitingConfirmations,
                 absl::StrFormat("%d of %d confirmed bad verdicts to drain", history.confirmed_bad,
                                 policy.confirmations_to_drain),
                 history.latest_bad);
  }
  if (history.confirmed_bad >= policy.confirmations_to_drain) {
    // Said once, and never drained (the guard held it back, or the
    // integration was off): a re-test decides, not an old report.
    return Leave(node, LeaveWhy::kStaleEvidence,
                 absl::StrCat("confirmed bad, but older than ",
                              absl::FormatDuration(policy.evidence_max_age), ": re-test it"),
                 history.latest_bad);
  }
  if (history.suspect_bad) {
    return Leave(node, LeaveWhy::kSuspectOnly, "suspect, not confirmed: suspect never drains");
  }
  if (history.latest_in_slowdown) {
    return Leave(node, LeaveWhy::kFleetWideSlowdown,
                 "slow in a fleet-wide slowdown: a fleet finding, not a drain");
  }
  if (history.latest_unfit) {
    return Leave(node, LeaveWhy::kUnfitNotDrained,
                 "unfit (preflight): the policy does not drain unfit nodes");
  }
  return std::nullopt;
}

// The action for one node both sides know, before the blast-radius guard.
std::optional<Action> DecideNode(const SchedulerNode& node, const NodeHistory& history,
                                 const SchedulerPolicy& policy, absl::Time now) {
  const bool ours = IsOurReason(node.reason, policy.reason_prefix);
  if (IsDrained(node.state) && ours) return DecideOurs(node, history, policy);
  std::optional<Action> wanted = DecideBad(node, history, policy, now);
  if (!wanted) return wanted;
  // Whatever the verdicts say, another's drain is the only thing to say.
  if (IsDrained(node.state)) {
    return Leave(node, LeaveWhy::kOperatorDrained,
                 absl::StrCat("drained by someone else (reason: ",
                              OneLine(node.reason, kMaxReasonBytes), "): never touched"),
                 history.latest_bad);
  }
  if (wanted->kind != ActionKind::kDrain) return wanted;
  if (node.state == NodeState::kDown || node.state == NodeState::kUnknown) {
    return Leave(node, LeaveWhy::kSchedulerUnavailable,
                 absl::StrCat("the scheduler has it ", NodeStateName(node.state),
                              ": decided again when it returns"),
                 history.latest_bad);
  }
  return wanted;
}

int Limit(double share, int size, int floor_count) {
  return std::max(floor_count, static_cast<int>(std::floor(share * size)));
}

// Leaves the drains over the fleet's or a group's share, counting the
// drains of ours that stand. Failed before degraded (wrong data harms a job
// more than a slow link), then the oldest evidence, then the name.
void GuardBlastRadius(const std::vector<SchedulerNode>& nodes, const SchedulerPolicy& policy,
                      const std::map<std::string, Verdict>& cause_verdicts,
                      std::vector<Action>& actions) {
  std::map<std::string, const SchedulerNode*> by_name;
  std::map<std::string, int> group_size, group_drained;
  int drained = 0;
  for (const SchedulerNode& node : nodes) {
    by_name[node.name] = &node;
    if (!node.group.empty()) ++group_size[node.group];
    if (!IsOurStandingDrain(node, policy)) continue;
    ++drained;
    if (!node.group.empty()) ++group_drained[node.group];
  }
  const int fleet_limit =
      Limit(policy.max_drained_share, static_cast<int>(nodes.size()), policy.min_drains_allowed);
  std::vector<Action*> drains;
  for (Action& action : actions) {
    if (action.kind == ActionKind::kDrain) drains.push_back(&action);
  }
  auto severity = [&](const Action* action) {
    const bool failed = cause_verdicts.at(action->node) == Verdict::kFailed;
    return std::make_tuple(!failed, action->cause->time, action->node);
  };
  std::sort(drains.begin(), drains.end(),
            [&](const Action* a, const Action* b) { return severity(a) < severity(b); });
  for (Action* action : drains) {
    const std::string& group = by_name.at(action->node)->group;
    const bool fleet_full = drained >= fleet_limit;
    const bool group_full =
        !group.empty() &&
        group_drained[group] >=
            Limit(policy.max_drained_share_per_group, group_size[group], policy.min_drains_allowed);
    if (!fleet_full && !group_full) {
      ++drained;
      if (!group.empty()) ++group_drained[group];
      continue;
    }
    action->kind = ActionKind::kLeave;
    action->why = LeaveWhy::kBlastRadiusGuard;
    action->reason =
        fleet_full ? absl::StrFormat("blast-radius guard: %d of %d fleet nodes drained by ebnccl",
                                     drained, nodes.size())
                   : absl::StrFormat(
                         "blast-radius guard: %d of %d nodes of group %s drained by "
                         "ebnccl",
                         group_drained[group], group_size[group], OneLine(group, 64));
  }
}

}  // namespace

namespace {

absl::Status CheckPolicy(const SchedulerPolicy& policy) {
  auto share = [](double value) { return value >= 0 && value <= 1; };
  if (!share(policy.max_drained_share) || !share(policy.max_drained_share_per_group) ||
      !share(policy.fleet_slowdown_share) || !share(policy.fleet_slowdown_min_coverage)) {
    return absl::InvalidArgumentError(
        "[scheduler]: max_drained_share, max_drained_share_per_group, fleet_slowdown_share and "
        "fleet_slowdown_min_coverage must be in [0, 1]");
  }
  if (policy.confirmations_to_drain < 1 || policy.passes_to_resume < 1 ||
      policy.flaps_to_stay_drained < 1 || policy.fleet_slowdown_min_nodes < 1 ||
      policy.min_drains_allowed < 0) {
    return absl::InvalidArgumentError(
        "[scheduler]: confirmations_to_drain, passes_to_resume, flaps_to_stay_drained and "
        "fleet_slowdown_min_nodes must be at least 1, min_drains_allowed at least 0");
  }
  if (policy.reason_prefix.empty() || OneLine(policy.reason_prefix, 64) != policy.reason_prefix ||
      policy.reason_prefix.find(' ') != std::string::npos) {
    return absl::InvalidArgumentError(
        "[scheduler]: reason_prefix must be one word of printable characters, at most 64");
  }
  return absl::OkStatus();
}

// Findings for the names one side knows and the other does not: reported,
// never guessed (a near-match such as a short vs a full host name is not
// taken for the same node).
void FindUnknownNodes(const DecisionInput& input, const std::set<std::string>& scheduler_names,
                      const std::set<std::string>& ebnccl_names, std::vector<Finding>& findings) {
  std::set<std::string> unknown_to_scheduler;
  for (const std::string& name : ebnccl_names) {
    if (scheduler_names.count(name) == 0) unknown_to_scheduler.insert(name);
  }
  for (const NodeVerdictRecord& record : input.verdicts) {
    if (scheduler_names.count(record.node) == 0) unknown_to_scheduler.insert(record.node);
  }
  for (const std::string& name : unknown_to_scheduler) {
    const std::string shown = OneLine(name, 128);
    findings.push_back(
        {FindingKind::kUnknownToScheduler, shown, "",
         absl::StrCat("ebnccl knows node ", shown, "; the scheduler does not list it: no action")});
  }
  for (const std::string& name : scheduler_names) {
    if (ebnccl_names.count(name) > 0) continue;
    const std::string shown = OneLine(name, 128);
    findings.push_back(
        {FindingKind::kUnknownToEbnccl, shown, "",
         absl::StrCat("the scheduler lists node ", shown, "; ebnccl's fleet does not: no action")});
  }
}

}  // namespace

absl::StatusOr<Decision> Decide(const DecisionInput& input, absl::Time now) {
  const SchedulerPolicy& policy = input.policy;
  if (absl::Status status = CheckPolicy(policy); !status.ok()) return status;
  std::set<std::string> scheduler_names;
  for (const SchedulerNode& node : input.scheduler_nodes) {
    if (!scheduler_names.insert(node.name).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the scheduler lists node ", OneLine(node.name, 128), " twice: no decision"));
    }
  }
  const std::set<std::string> ebnccl_names(input.ebnccl_nodes.begin(), input.ebnccl_nodes.end());

  Decision decision;
  decision.dry_run = policy.dry_run;
  std::set<std::string> slowdown_ids;
  // The fleet: the nodes both sides know; only their verdicts speak for it.
  int fleet_size = 0;
  for (const std::string& name : scheduler_names) fleet_size += ebnccl_names.count(name) > 0;
  std::vector<NodeVerdictRecord> fleet_verdicts;
  for (const NodeVerdictRecord& record : input.verdicts) {
    if (scheduler_names.count(record.node) > 0 && ebnccl_names.count(record.node) > 0) {
      fleet_verdicts.push_back(record);
    }
  }
  for (const FleetSlowdown& slowdown : FindFleetSlowdowns(fleet_verdicts, policy, fleet_size)) {
    const std::string id = OneLine(slowdown.validation_id, kMaxReasonBytes);
    if (slowdown.most_slow) {
      slowdown_ids.insert(slowdown.validation_id);
      decision.findings.push_back(
          {FindingKind::kFleetWideSlowdown, "", id,
           absl::StrFormat("fleet-wide slowdown in %s: %d of %d judged nodes slow; no node "
                           "drained for it",
                           id, slowdown.slow, slowdown.tested)});
    }
    if (!slowdown.below_expected.empty()) {
      decision.findings.push_back(
          {FindingKind::kFleetBelowExpected, "", id,
           absl::StrFormat("fleet below its expected figure in %s (%d judged nodes): %s; judged "
                           "against its own median: no node drained for the fleet's level, and "
                           "its healthy verdicts resume no one",
                           id, slowdown.tested, OneLine(slowdown.below_expected, 512))});
    }
  }
  FindUnknownNodes(input, scheduler_names, ebnccl_names, decision.findings);

  const auto by_node = ByNode(input.verdicts);
  std::map<std::string, Verdict> cause_verdicts;
  for (const SchedulerNode& node : input.scheduler_nodes) {
    if (ebnccl_names.count(node.name) == 0) continue;  // a finding above
    const auto found = by_node.find(node.name);
    const NodeHistory history =
        SummarizeNode(found == by_node.end() ? std::vector<NodeVerdictRecord>{} : found->second,
                      policy, slowdown_ids, now);
    std::optional<Action> action = DecideNode(node, history, policy, now);
    if (!action) continue;
    if (history.latest_bad) cause_verdicts[node.name] = history.latest_bad->verdict;
    decision.actions.push_back(std::move(*action));
  }
  GuardBlastRadius(input.scheduler_nodes, policy, cause_verdicts, decision.actions);
  std::sort(decision.actions.begin(), decision.actions.end(),
            [](const Action& a, const Action& b) { return a.node < b.node; });
  for (Action& action : decision.actions) {
    action.execute = !policy.dry_run && action.kind != ActionKind::kLeave;
  }
  return decision;
}

std::string AuditLine(const Action& action) {
  std::string line = absl::StrCat(ActionKindName(action.kind), " ", OneLine(action.node, 128));
  if (action.kind == ActionKind::kLeave)
    absl::StrAppend(&line, " (", LeaveWhyName(action.why), ")");
  absl::StrAppend(&line, ": ", action.reason);
  if (action.cause) {
    absl::StrAppend(&line, " (cause ", action.cause->validation_id, " at ",
                    absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", action.cause->time, absl::UTCTimeZone()),
                    ": ", action.cause->evidence, ")");
  }
  if (action.kind != ActionKind::kLeave && !action.execute) absl::StrAppend(&line, " [dry run]");
  return line;
}

}  // namespace eb::scheduler
