#pragma once

// One pass of scheduler integration after a validation (issue 30): read the
// scheduler's nodes, decide (the pure core, decision.h), and for each drain
// or resume record the intent in the audit log *before* carrying it out,
// then carry it out through the backend and record the result. A dry run
// records and logs the same decisions and carries out none. Nothing is
// decided on a scheduler answer that could not be read whole. Blocking (the
// backend runs commands): call it off the coordinator's event loop.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "coordinator/scheduler/decision.h"
#include "coordinator/scheduler/scheduler_backend.h"

namespace eb::scheduler_io {

// Where the intents and results go. Record returns once the entry is on
// record: an action whose intent could not be recorded is not carried out
// (a restart must find every action it may have half done).
class ActionAudit {
 public:
  virtual ~ActionAudit() = default;
  // `method`: "scheduler.drain", "scheduler.drain.intent", ...; `target`:
  // the node (or "fleet"); `message`: one line.
  virtual absl::Status Record(const std::string& method, const std::string& target,
                              const absl::Status& outcome, const std::string& message) = 0;
};

struct ReconcileInput {
  // ebnccl's fleet (the registered nodes).
  std::vector<std::string> ebnccl_nodes;
  // Node verdicts of the finished validations, at least flap_window's worth.
  std::vector<scheduler::NodeVerdictRecord> verdicts;
  // What started this pass, for the log ("validation v-...").
  std::string trigger;
  // The validation this pass follows ("" for the start-up pass). A finding
  // about a validation (a fleet-wide slowdown, a fleet below its expected
  // figure) is audited by that validation's own pass only: the verdicts of
  // later passes still hold it, and it was audited at every one of them.
  std::string validation_id;
  // False for the start-up pass (StartUpInput): the agents have not
  // registered yet, so a node the scheduler lists and ebnccl does not name
  // is not reported as unknown to ebnccl.
  bool fleet_known = true;
};

// The pass at start-up, before any validation runs: the drains and resumes
// that the recorded verdicts call for and that a previous run decided but
// may not have carried out (killed between an intent and its action, or
// between a validation's end and its pass) are decided again. Deciding is
// idempotent (a node already drained by ebnccl is not drained again), so
// an action carried out before the restart is not repeated. ebnccl's fleet
// is the nodes `registered` so far and those the verdicts name.
ReconcileInput StartUpInput(std::vector<scheduler::NodeVerdictRecord> verdicts,
                            const std::vector<std::string>& registered);

struct ReconcileOutcome {
  scheduler::Decision decision;
  int drained = 0;
  int resumed = 0;
  // Actions whose intent was recorded but that the scheduler refused or
  // that could not be recorded; the next pass decides them again.
  int failed = 0;
};

absl::StatusOr<ReconcileOutcome> Reconcile(scheduler::SchedulerBackend& backend, ActionAudit& audit,
                                           const ReconcileInput& input,
                                           const scheduler::SchedulerPolicy& policy,
                                           absl::Time now);

}  // namespace eb::scheduler_io
