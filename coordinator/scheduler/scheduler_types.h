#pragma once

// The words of the scheduler decision core (issue 30): what the scheduler
// says of each node, what ebnccl concluded of it, the policy
// (`[scheduler]`), and the actions and findings a decision returns. Plain
// structs: the backends (Slurm through its CLI tools, Kubernetes) fill the
// inputs from what they read and carry out the outputs; the core keeps no
// state of its own (docs/DESIGN.md, "Scheduler integration (issue 30): the
// decision core"). Pure; any thread.

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/validation/verdict.h"

namespace eb::scheduler {

// A node's state as the scheduler reports it (Slurm's base state and
// flags, or a Kubernetes node's taints and pods, mapped by the backend).
enum class NodeState {
  kIdle,       // schedulable, no job
  kAllocated,  // holds a job (a tenant's, or a borrow/probe job of ours)
  kDraining,   // drained while a job still runs there
  kDrained,    // drained, no job
  kDown,       // not responding, or taken out by the scheduler itself
  kUnknown,    // the backend could not map what the scheduler said
};
std::string NodeStateName(NodeState state);

struct SchedulerNode {
  std::string name;
  NodeState state = NodeState::kUnknown;
  // The drain reason (Slurm's Reason, the taint's or condition's message):
  // whose drain it is, by its prefix. Empty when the node is not drained.
  std::string reason;
  // A borrow or probe job of ebnccl's holds it (then state is kAllocated).
  bool held_by_us = false;
  // The rail group the node belongs to (e.g. a leaf switch's nodes), for
  // the per-group blast-radius guard; empty: only the fleet-wide guard.
  std::string group;
};

// One node verdict of one validation (history keeps them all).
struct NodeVerdictRecord {
  std::string node;
  validation::Verdict verdict = validation::Verdict::kHealthy;
  validation::Confidence confidence = validation::Confidence::kConfirmed;
  std::string validation_id;  // e.g. "v-20261206-1200-ab12"
  std::string evidence;       // one line; untrusted (it quotes agents)
  absl::Time time;            // when the validation concluded
  // The validation's `fleet_below_expected` finding, "" when it had none:
  // its fleet median was below the expected figure and few nodes reached
  // it, so its verdicts were judged against that median. One line;
  // untrusted. Its healthy verdicts are then no passes (decision.h).
  std::string fleet_below_expected;
  // The rails the verdict covers (its pair tests measured them one by one);
  // empty: none (its network was not judged: intra or preflight alone);
  // nullopt: every rail (tests without per-rail results, Gloo or one rail,
  // or a report older than the field).
  std::optional<std::vector<int>> rails;
};

struct SchedulerPolicy {
  // Confirmed bad verdicts (degraded or failed, from distinct validations,
  // with no healthy verdict between them) that drain a node. A suspect
  // verdict never counts.
  int confirmations_to_drain = 1;
  // Healthy verdicts after the last bad one that resume a node we drained.
  int passes_to_resume = 1;
  // Bad episodes (runs of bad verdicts separated by a healthy one) within
  // flap_window of now that keep a node drained as a repeat offender:
  // 2 is "bad, good, bad".
  absl::Duration flap_window = absl::Hours(24 * 7);
  int flaps_to_stay_drained = 2;
  // A verdict older than this never drains (a stale report read after a
  // restart, or the integration turned on late, must not drain today).
  absl::Duration evidence_max_age = absl::Hours(24);
  // At most this share of the fleet (the scheduler's nodes) drained by
  // ebnccl at once, and of each rail group; at least min_drains_allowed
  // (a 6-node fleet at 10% could otherwise never drain anything).
  double max_drained_share = 0.10;
  double max_drained_share_per_group = 0.10;
  int min_drains_allowed = 1;
  // A validation where more than this share of the nodes it judged is slow
  // (degraded) is a fleet-wide slowdown: one finding, and its degraded
  // verdicts drain no one. It must have judged at least
  // fleet_slowdown_min_nodes nodes and fleet_slowdown_min_coverage of the
  // fleet: a confirming round that re-tests only the 3 suspects of a
  // 1,000-node fleet is all slow, and says nothing of the fleet.
  double fleet_slowdown_share = 0.5;
  int fleet_slowdown_min_nodes = 2;
  double fleet_slowdown_min_coverage = 0.5;
  // Drain on a confirmed `unfit` (preflight: the node differs from the
  // fleet's majority). Off: an inventory difference is for a person.
  bool drain_unfit = false;
  std::string reason_prefix = "ebnccl";
  bool dry_run = false;
};

struct DecisionInput {
  std::vector<SchedulerNode> scheduler_nodes;
  // The nodes ebnccl knows (its fleet: registered agents, the fleet file).
  std::vector<std::string> ebnccl_nodes;
  // Verdicts in any order; at least flap_window's worth.
  std::vector<NodeVerdictRecord> verdicts;
  SchedulerPolicy policy;
};

enum class ActionKind { kDrain, kResume, kLeave };
std::string ActionKindName(ActionKind kind);

// Why a node is left as it is (kLeave), or kNone for drains and resumes.
enum class LeaveWhy {
  kNone,
  kAlreadyDrained,         // drained by us already: no second drain
  kOperatorDrained,        // drained by someone else: never touched
  kSchedulerUnavailable,   // down or unknown to the scheduler's own state
  kSuspectOnly,            // bad, but not confirmed: suspect never drains
  kAwaitingConfirmations,  // confirmed bad, fewer than confirmations_to_drain
  kAwaitingPasses,         // drained by us, fewer than passes_to_resume passes
  kRepeatOffender,         // drained by us, flapping within the window
  kBlastRadiusGuard,       // a drain over the fleet or group share
  kUnfitNotDrained,        // confirmed unfit, and drain_unfit is off
  kFleetWideSlowdown,      // degraded in a validation that found the fleet slow
  kNoEvidence,             // drained by us, and no verdict of it is known
  kStaleEvidence,          // confirmed bad, but older than evidence_max_age: re-test it
};
std::string LeaveWhyName(LeaveWhy why);

// The verdict an action rests on, for the audit log.
struct Cause {
  std::string validation_id;
  std::string evidence;  // sanitized, one line
  absl::Time time;
};

struct Action {
  ActionKind kind = ActionKind::kLeave;
  LeaveWhy why = LeaveWhy::kNone;
  std::string node;
  // kDrain: the reason to set (prefix, validation, evidence; bounded).
  // kLeave: what the audit log says. kResume: why it is resumed.
  std::string reason;
  std::optional<Cause> cause;
  bool repeat_offender = false;
  bool node_has_job = false;  // a drain makes it draining; the job runs on
  bool execute = true;        // false in a dry run: report, do not act
};

enum class FindingKind {
  kFleetWideSlowdown,   // a validation found most of what it tested slow
  kFleetBelowExpected,  // a validation's fleet median was below its expected figure
  kUnknownToScheduler,  // ebnccl knows the node (or has a verdict), the scheduler does not
  kUnknownToEbnccl,     // the scheduler lists it, ebnccl's fleet does not
};
std::string FindingKindName(FindingKind kind);

struct Finding {
  FindingKind kind = FindingKind::kFleetWideSlowdown;
  std::string node;           // empty for fleet-wide findings
  std::string validation_id;  // the validation concerned, if any
  std::string text;
};

struct Decision {
  std::vector<Action> actions;  // sorted by node name
  std::vector<Finding> findings;
  bool dry_run = false;
};

}  // namespace eb::scheduler
