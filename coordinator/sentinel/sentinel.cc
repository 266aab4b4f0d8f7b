#include "coordinator/sentinel/sentinel.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "coordinator/scheduler/sentinel_inputs.h"
#include "spdlog/spdlog.h"

namespace eb::sentinel {

Sentinel::Sentinel(common::Executor& executor, common::Clock& clock, ProbeScheduler& scheduler,
                   ProbeRunner& runner, Facts facts, const SentinelSettings& settings)
    : executor_(executor),
      clock_(clock),
      scheduler_(scheduler),
      runner_(runner),
      facts_(std::move(facts)),
      settings_(settings) {}

Sentinel::~Sentinel() {
  *alive_ = false;
  if (tick_ != 0) executor_.Cancel(tick_);
  for (auto& [serial, probe] : probes_) {
    if (probe.watch != 0) executor_.Cancel(probe.watch);
  }
}

void Sentinel::Start() { ScheduleTick(settings_.min_tick); }

void Sentinel::ScheduleTick(absl::Duration delay) {
  const absl::Time at = clock_.Now() + std::max(delay, absl::ZeroDuration());
  if (tick_ != 0) {
    if (tick_at_ <= at) return;
    executor_.Cancel(tick_);
  }
  tick_at_ = at;
  tick_ = executor_.PostAfter(at - clock_.Now(), [this, alive = alive_] {
    if (!*alive) return;
    tick_ = 0;
    tick_at_ = absl::InfiniteFuture();
    Tick();
  });
}

void Sentinel::Tick() {
  // One read at a time; the answer plans and schedules the next tick.
  if (reading_) return;
  reading_ = true;
  ++stats_.ticks;
  scheduler_.ReadNodes(
      [this, alive = alive_](absl::StatusOr<std::vector<scheduler::SchedulerNode>> nodes) {
        if (!*alive) return;
        reading_ = false;
        Plan(std::move(nodes));
      });
}

void Sentinel::Plan(absl::StatusOr<std::vector<scheduler::SchedulerNode>> nodes) {
  const scheduler::SentinelPolicy& policy = settings_.policy;
  if (!nodes.ok()) {
    // Nothing is borrowed on a scheduler that cannot be read.
    spdlog::warn("sentinel: no probe planned: {}", nodes.status().ToString());
    ScheduleTick(std::max(policy.retry_after, settings_.min_tick));
    return;
  }
  // The pairs borrowing or running are ours, whatever the read says (a
  // pending probe job shows its nodes idle): the planner neither takes them
  // again nor forgets them in the share of idle nodes held.
  std::set<std::string> held;
  for (const auto& [serial, probe] : probes_) held.insert(probe.nodes.begin(), probe.nodes.end());
  for (scheduler::SchedulerNode& node : *nodes) {
    if (!held.contains(node.name)) continue;
    node.state = scheduler::NodeState::kAllocated;
    node.held_by_us = true;
  }
  FleetFacts facts = facts_();
  const std::set<std::string> testable(facts.ebnccl_nodes.begin(), facts.ebnccl_nodes.end());
  const std::vector<scheduler::SentinelNode> inputs =
      scheduler::SentinelNodesFrom(*nodes, testable, facts.verdicts, facts.rails, facts.node_rails);
  const absl::Time now = clock_.Now();
  absl::StatusOr<scheduler::SentinelPlan> plan = scheduler::PlanSentinel(inputs, policy, now);
  if (!plan.ok()) {
    spdlog::error("sentinel: no probe planned: {}", plan.status().ToString());
    ScheduleTick(std::max(policy.retry_after, settings_.min_tick));
    return;
  }
  for (const scheduler::SentinelProbe& probe : plan->probes) {
    if (in_flight() >= settings_.max_probes) break;
    Borrow(probe);
  }
  ScheduleTick(std::clamp(plan->next_look - now, settings_.min_tick,
                          std::max(settings_.min_tick, settings_.max_tick)));
}

void Sentinel::Borrow(const scheduler::SentinelProbe& planned) {
  const uint64_t serial = next_serial_++;
  Probe& probe = probes_[serial];
  probe.nodes = {planned.node, planned.partner};
  // The job outlives the validation's own deadline (probe_duration) a
  // little: it is ended when the validation ends, and a job ended by its
  // time limit while the test still ran would read as a preemption.
  const int seconds = static_cast<int>(absl::ToInt64Seconds(settings_.policy.probe_duration)) + 120;
  spdlog::info("sentinel: probing {} with {}{}", planned.node, planned.partner,
               planned.partner_known_good ? " (known good)" : " (both due)");
  scheduler_.BorrowProbe(probe.nodes, seconds,
                         [this, serial, alive = alive_](absl::StatusOr<ProbeJob> job) {
                           if (!*alive) return;
                           Borrowed(serial, std::move(job));
                         });
}

void Sentinel::Borrowed(uint64_t serial, absl::StatusOr<ProbeJob> job) {
  auto it = probes_.find(serial);
  if (it == probes_.end()) return;
  Probe& probe = it->second;
  if (!job.ok()) {
    // The service ended the job it could not use; the nodes stay due.
    ++stats_.borrow_failed;
    spdlog::warn("sentinel: {} not probed: {}", absl::StrJoin(probe.nodes, ","),
                 job.status().ToString());
    probes_.erase(it);
    return;
  }
  ++stats_.borrowed;
  probe.job_id = job->job_id;
  starting_ = true;
  absl::StatusOr<std::string> id = runner_.Start(job->nodes);
  starting_ = false;
  if (!id.ok()) {
    spdlog::warn("sentinel: probe of {} not started: {}", absl::StrJoin(probe.nodes, ","),
                 id.status().ToString());
    scheduler_.GiveBack(probe.job_id, absl::StrCat("probe not started: ", id.status().message()));
    probes_.erase(it);
    ended_while_starting_.clear();
    return;
  }
  ++stats_.started;
  probe.validation_id = *id;
  by_validation_[*id] = serial;
  std::map<std::string, std::string> ended = std::move(ended_while_starting_);
  ended_while_starting_.clear();
  if (auto early = ended.find(*id); early != ended.end()) {
    OnValidationFinished(*id, early->second);
    return;
  }
  ArmWatch(serial);
}

void Sentinel::ArmWatch(uint64_t serial) {
  Probe& probe = probes_.at(serial);
  probe.watch = executor_.PostAfter(settings_.watch_period, [this, serial, alive = alive_] {
    if (!*alive) return;
    auto it = probes_.find(serial);
    if (it == probes_.end()) return;
    it->second.watch = 0;
    scheduler_.ReadJob(it->second.job_id,
                       [this, serial, alive](absl::StatusOr<std::vector<std::string>> nodes) {
                         if (!*alive) return;
                         JobRead(serial, std::move(nodes));
                       });
  });
}

void Sentinel::JobRead(uint64_t serial, absl::StatusOr<std::vector<std::string>> nodes) {
  auto it = probes_.find(serial);
  if (it == probes_.end() || it->second.stopping) return;
  Probe& probe = it->second;
  if (nodes.ok() && !nodes->empty()) {
    probe.unread = 0;
    ArmWatch(serial);
    return;
  }
  if (nodes.ok() || absl::IsNotFound(nodes.status())) {
    // Gone (cancelled or preempted) or pending again (requeued): the
    // scheduler took the pair back. Stop now; never a hardware verdict.
    probe.stopping = true;
    const std::string why = absl::StrCat("the scheduler took the nodes back (probe job ",
                                         probe.job_id, nodes.ok() ? " was requeued)" : " is gone)");
    spdlog::info("sentinel: probe {} on {}: {}", probe.validation_id,
                 absl::StrJoin(probe.nodes, ","), why);
    if (absl::Status preempted = runner_.Preempt(probe.validation_id, why); !preempted.ok()) {
      spdlog::warn("sentinel: probe {} not preempted: {}", probe.validation_id,
                   preempted.ToString());
    }
    return;
  }
  if (++probe.unread < settings_.max_unread_watches) {
    ArmWatch(serial);
    return;
  }
  probe.stopping = true;
  ++stats_.cancelled_unread;
  const std::string why = absl::StrCat("probe job ", probe.job_id, " could not be read ",
                                       probe.unread, " times: ", nodes.status().message());
  spdlog::warn("sentinel: probe {} stopped: {}", probe.validation_id, why);
  if (absl::Status cancelled = runner_.Cancel(probe.validation_id, why); !cancelled.ok()) {
    spdlog::warn("sentinel: probe {} not cancelled: {}", probe.validation_id, cancelled.ToString());
  }
}

void Sentinel::OnValidationFinished(const std::string& validation_id, const std::string& state) {
  auto found = by_validation_.find(validation_id);
  if (found == by_validation_.end()) {
    if (starting_) ended_while_starting_[validation_id] = state;
    return;
  }
  const uint64_t serial = found->second;
  by_validation_.erase(found);
  auto it = probes_.find(serial);
  if (it == probes_.end()) return;
  Probe probe = std::move(it->second);
  probes_.erase(it);
  if (probe.watch != 0) executor_.Cancel(probe.watch);
  ++stats_.ended;
  if (state == "preempted") ++stats_.preempted;
  // However it ended: a requeued job would hold the pair again later, and a
  // gone one is OK to end.
  scheduler_.GiveBack(probe.job_id, absl::StrCat("probe ", validation_id, " ", state));
  spdlog::info("sentinel: probe {} of {} {}", validation_id, absl::StrJoin(probe.nodes, ","),
               state);
  // A slot is free, and the evidence fresher: plan again soon.
  ScheduleTick(settings_.min_tick);
}

}  // namespace eb::sentinel
