#pragma once

// The decision core of scheduler integration (issue 30): given what the
// scheduler says of each node and ebnccl's verdicts, what to drain, what to
// resume, and what to leave (and why). The backends read the scheduler, call
// Decide with the time, record the actions as intents, carry them out and
// log each with its cause. Pure: no I/O, no clock (`now` is the caller's),
// no state (docs/DESIGN.md, "Scheduler integration (issue 30): the
// decision core"); any thread.

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "coordinator/scheduler/scheduler_types.h"

namespace eb::scheduler {

// The rules, in order, for each node the scheduler and ebnccl both know:
//  - Ownership: a drained or draining node whose reason is not ours
//    (IsOurReason) is never touched, not even its reason.
//  - Resume: a node drained by us is resumed after policy.passes_to_resume
//    healthy verdicts following its last bad one, unless it flapped (policy
//    .flaps_to_stay_drained bad episodes within policy.flap_window): then it
//    stays drained, a repeat offender.
//  - Drain: a node that is idle or holds a job (Slurm then calls it
//    draining; the job runs to its end) is drained after
//    policy.confirmations_to_drain confirmed bad verdicts from distinct
//    validations with no healthy one between them, the latest no older than
//    policy.evidence_max_age. Suspect verdicts never drain; untestable never
//    counts; unfit drains only with policy.drain_unfit. A node already
//    drained by us is not drained again (deciding twice gives the same
//    actions, and carrying them out twice changes nothing).
//  - Fleet-wide slowdown: a validation where most judged nodes were
//    degraded is one finding; its degraded verdicts drain no one.
//  - Fleet below its figure: a validation whose fleet median was below the
//    expected figure (its fleet_below_expected finding) is one finding,
//    whatever it covered. It graded against that median, so its healthy
//    verdicts are no passes (they resume no one) and a node it found
//    degraded or failed, slower than its slow peers, counts as usual.
//  - Blast radius: drains that would put more than the fleet's or a group's
//    share under our drain (counting ours already in place) are left, with
//    why kBlastRadiusGuard; failed before degraded, older evidence first.
//  - A node the scheduler lists but ebnccl's fleet does not, or the
//    reverse (or a verdict for a node the scheduler does not list), is a
//    finding, and no action.
// Actions are sorted by node name; with policy.dry_run every action has
// execute = false. INVALID_ARGUMENT for a policy out of range (a share
// outside [0, 1], a count below 1, an empty prefix) or a node the scheduler
// lists twice.
absl::StatusOr<Decision> Decide(const DecisionInput& input, absl::Time now);

// One line for the audit log: "drain n1: ebnccl v-1: rail 3 at 52% of
// expected (cause v-1 at 2026-12-06T11:00:00Z: rail 3 at 52% of
// expected)", "leave n2 (blast-radius guard): ...", with " [dry run]" when
// the action is not to be carried out. Built from sanitized parts only.
std::string AuditLine(const Action& action);

}  // namespace eb::scheduler
