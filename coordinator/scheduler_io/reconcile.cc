#include "coordinator/scheduler_io/reconcile.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace eb::scheduler_io {

namespace sch = scheduler;

ReconcileInput StartUpInput(std::vector<sch::NodeVerdictRecord> verdicts,
                            const std::vector<std::string>& registered) {
  std::set<std::string> fleet(registered.begin(), registered.end());
  for (const sch::NodeVerdictRecord& record : verdicts) fleet.insert(record.node);
  ReconcileInput input;
  input.ebnccl_nodes.assign(fleet.begin(), fleet.end());
  input.verdicts = std::move(verdicts);
  input.trigger = "start-up (a previous run's unfinished drains and resumes)";
  input.fleet_known = false;
  return input;
}

absl::StatusOr<ReconcileOutcome> Reconcile(sch::SchedulerBackend& backend, ActionAudit& audit,
                                           const ReconcileInput& input,
                                           const sch::SchedulerPolicy& policy, absl::Time now) {
  absl::StatusOr<std::vector<sch::SchedulerNode>> nodes = backend.ListNodes();
  if (!nodes.ok()) {
    // Nothing decided on an answer that could not be read whole.
    (void)audit.Record("scheduler.read", "fleet", nodes.status(),
                       absl::StrCat(input.trigger, ": nothing decided"));
    return nodes.status();
  }
  sch::DecisionInput decision_input;
  decision_input.scheduler_nodes = *std::move(nodes);
  decision_input.ebnccl_nodes = input.ebnccl_nodes;
  decision_input.verdicts = input.verdicts;
  decision_input.policy = policy;
  absl::StatusOr<sch::Decision> decision = sch::Decide(decision_input, now);
  if (!decision.ok()) {
    (void)audit.Record("scheduler.decide", "fleet", decision.status(),
                       absl::StrCat(input.trigger, ": nothing decided"));
    return decision.status();
  }
  ReconcileOutcome outcome;
  for (const sch::Finding& finding : decision->findings) {
    if (!input.fleet_known && finding.kind == sch::FindingKind::kUnknownToEbnccl) continue;
    if (!finding.validation_id.empty() && finding.validation_id != input.validation_id) continue;
    const std::string line = absl::StrCat(sch::FindingKindName(finding.kind), ": ", finding.text);
    spdlog::warn("scheduler {}: {}", backend.Name(), line);
    (void)audit.Record("scheduler.finding", finding.node.empty() ? "fleet" : finding.node,
                       absl::OkStatus(), line);
  }
  for (const sch::Action& action : decision->actions) {
    const std::string line = sch::AuditLine(action);
    if (action.kind == sch::ActionKind::kLeave) {
      spdlog::info("scheduler {}: {}", backend.Name(), line);
      continue;
    }
    const std::string verb = action.kind == sch::ActionKind::kDrain ? "drain" : "resume";
    if (!action.execute) {
      spdlog::info("scheduler {} dry run: {}", backend.Name(), line);
      (void)audit.Record(absl::StrCat("scheduler.", verb, ".dry_run"), action.node,
                         absl::OkStatus(), line);
      continue;
    }
    if (absl::Status intent = audit.Record(absl::StrCat("scheduler.", verb, ".intent"), action.node,
                                           absl::OkStatus(), line);
        !intent.ok()) {
      spdlog::error("scheduler {}: {} not carried out: its intent cannot be recorded: {}",
                    backend.Name(), line, intent.ToString());
      ++outcome.failed;
      continue;
    }
    const absl::Status done = action.kind == sch::ActionKind::kDrain
                                  ? backend.Drain(action.node, action.reason)
                                  : backend.Resume(action.node);
    if (done.ok()) {
      spdlog::info("scheduler {}: {}", backend.Name(), line);
      ++(action.kind == sch::ActionKind::kDrain ? outcome.drained : outcome.resumed);
    } else {
      spdlog::error("scheduler {}: {} failed: {}", backend.Name(), line, done.ToString());
      ++outcome.failed;
    }
    (void)audit.Record(absl::StrCat("scheduler.", verb), action.node, done, line);
  }
  spdlog::info("scheduler {} after {}: {} drained, {} resumed, {} failed, {} finding(s){}",
               backend.Name(), input.trigger, outcome.drained, outcome.resumed, outcome.failed,
               decision->findings.size(), decision->dry_run ? " (dry run)" : "");
  outcome.decision = *std::move(decision);
  return outcome;
}

}  // namespace eb::scheduler_io
