#pragma once

// The sentinel's loop (issue 30, part 3): on a timer, it reads the
// scheduler, asks the pure planner (PlanSentinel) which idle pairs to
// probe, borrows each pair with a preemptible probe job, runs a validation
// on exactly that pair, watches the job while it runs, and ends the job
// whatever the validation's end. When the scheduler takes the nodes back
// (the job is gone, or requeued and pending again), the validation is
// preempted at once: its tests are cancelled and it ends PREEMPTED, never
// a hardware verdict (docs/DESIGN.md, "The sentinel"). The verdicts of the
// probes that end otherwise reach the scheduler's decisions the way every
// validation's do (CoordinatorServer's on_finished).
//
// Owned by the coordinator; every method runs on `executor` (the
// coordinator's loop), and the ports answer there.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "common/exec/executor.h"
#include "common/time/clock.h"
#include "coordinator/scheduler/sentinel_planner.h"
#include "coordinator/sentinel/sentinel_ports.h"

namespace eb::sentinel {

struct SentinelSettings {
  scheduler::SentinelPolicy policy;
  // At most this many probes at once (borrowing or running), whatever the
  // share of idle nodes would allow: a bound on the workers started.
  int max_probes = 4;
  // How often a running probe's job is read. A tenant waits at most this,
  // plus one scheduler read, plus the workers' stop (issue 30: 5 s).
  absl::Duration watch_period = absl::Seconds(1);
  // Consecutive failed reads of a probe's job that stop the probe
  // (cancelled): a sentinel that cannot see the scheduler must not hold
  // nodes a tenant may be waiting for.
  int max_unread_watches = 3;
  // Ticks at least this far apart, whatever the planner asks; the first
  // one this long after Start (the agents re-register after a restart).
  absl::Duration min_tick = absl::Seconds(5);
  // Ticks at most this far apart: the planner's next_look knows the nodes
  // it was given, not an agent that registers later or a job that ends.
  absl::Duration max_tick = absl::Minutes(1);
};

class Sentinel {
 public:
  using Facts = std::function<FleetFacts()>;

  // `scheduler` and `runner` must outlive the sentinel.
  Sentinel(common::Executor& executor, common::Clock& clock, ProbeScheduler& scheduler,
           ProbeRunner& runner, Facts facts, const SentinelSettings& settings);
  ~Sentinel();
  Sentinel(const Sentinel&) = delete;
  Sentinel& operator=(const Sentinel&) = delete;

  // The first tick, min_tick from now; each tick schedules the next.
  void Start();
  // Every validation's end (the coordinator's on_finished): a probe's ends
  // its job. `state` is the end state's wire name ("done", "preempted", ...).
  void OnValidationFinished(const std::string& validation_id, const std::string& state);

  struct Stats {
    int ticks = 0;
    int borrowed = 0;       // probe jobs that ran on their pair
    int borrow_failed = 0;  // not submitted, not allocated in time or elsewhere
    int started = 0;        // validations started on a borrowed pair
    int preempted = 0;      // the scheduler took the pair back while it ran
    int cancelled_unread = 0;
    int ended = 0;  // probes over, however they ended
  };
  const Stats& stats() const { return stats_; }
  // Probes borrowing or running now.
  int in_flight() const { return static_cast<int>(probes_.size()); }

 private:
  struct Probe {
    std::vector<std::string> nodes;
    std::string job_id;         // once borrowed
    std::string validation_id;  // once started
    common::TimerId watch = 0;
    int unread = 0;
    bool stopping = false;  // preempted or cancelled: waiting for its end
  };

  void Tick();
  void Plan(absl::StatusOr<std::vector<scheduler::SchedulerNode>> nodes);
  void Borrow(const scheduler::SentinelProbe& planned);
  void Borrowed(uint64_t serial, absl::StatusOr<ProbeJob> job);
  void ArmWatch(uint64_t serial);
  void JobRead(uint64_t serial, absl::StatusOr<std::vector<std::string>> nodes);
  void ScheduleTick(absl::Duration delay);

  common::Executor& executor_;
  common::Clock& clock_;
  ProbeScheduler& scheduler_;
  ProbeRunner& runner_;
  const Facts facts_;
  const SentinelSettings settings_;
  std::map<uint64_t, Probe> probes_;
  std::map<std::string, uint64_t> by_validation_;
  uint64_t next_serial_ = 1;
  bool reading_ = false;
  // While runner_.Start runs: a validation may end within it (nothing to
  // test), before its id is known here.
  bool starting_ = false;
  std::map<std::string, std::string> ended_while_starting_;
  common::TimerId tick_ = 0;
  absl::Time tick_at_ = absl::InfiniteFuture();
  Stats stats_;
  // Cleared when the sentinel goes: answers and timers check it.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace eb::sentinel
