#include "tests/unit/scheduler/sentinel_sim.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace eb::scheduler::sim {
namespace {

double Seconds(absl::Duration d) { return absl::ToDoubleSeconds(d); }

// E[min(X, cap)] for X log-normal(mu, sigma): the mean job length, from
// which the mean idle gap that gives the utilisation follows.
double MeanCappedLogNormal(double mu, double sigma, double cap) {
  auto phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  const double log_cap = std::log(cap);
  return std::exp(mu + sigma * sigma / 2) * phi((log_cap - mu - sigma * sigma) / sigma) +
         cap * (1 - phi((log_cap - mu) / sigma));
}

struct SimNode {
  std::mt19937_64 rng;
  bool busy = false;
  absl::Time next_change;
  absl::Time since;  // when the current job or idle gap began
  int probe = -1;    // the probe holding it, if any
  std::deque<std::pair<absl::Time, absl::Time>> idle_gaps;  // closed, oldest first
  std::deque<absl::Time> probe_starts;  // of the probes that held it, oldest first
};

struct Probe {
  int a = 0, b = 0;
  absl::Time start, end;
  bool over = false;
};

// The overlap of [from, to] with [lo, hi], in seconds.
double Overlap(absl::Time from, absl::Time to, absl::Time lo, absl::Time hi) {
  return std::max(0.0, Seconds(std::min(to, hi) - std::max(from, lo)));
}

struct Counts {
  int64_t samples = 0, covered = 0, excused = 0;
};

class Simulation {
 public:
  explicit Simulation(const SimConfig& config) : config_(config) {}

  SimResult Run() {
    const absl::Time start = absl::UnixEpoch();
    window_begin_ = start + config_.warmup;
    window_end_ = window_begin_ + config_.measured;
    const Workload& w = config_.workload;
    mu_ = std::log(Seconds(w.job_median));
    const double mean_job = MeanCappedLogNormal(mu_, w.job_sigma, Seconds(w.job_cap));
    mean_idle_ = mean_job * (1 - w.utilisation) / w.utilisation;
    Seed(start);

    const absl::Duration need =
        config_.tick + config_.borrow_latency + config_.policy.probe_duration;
    Counts counts;
    int64_t ticks = 0;
    double idle_sum = 0;
    for (absl::Time now = start; now <= window_end_; now += config_.tick) {
      Advance(now);
      Complete(now);
      const bool measuring = now >= window_begin_;
      if (measuring && (now - window_begin_) % config_.sample_every == absl::ZeroDuration()) {
        Sample(now, need, &counts);
      }
      int idle = 0;
      for (size_t i = 0; i < nodes_.size(); ++i) {
        SentinelNode& view = view_[i];
        view.node.held_by_us = nodes_[i].probe >= 0;
        const bool free = !nodes_[i].busy && !view.node.held_by_us;
        view.node.state = free ? NodeState::kIdle : NodeState::kAllocated;
        idle += !nodes_[i].busy;
      }
      if (measuring) {
        idle_sum += idle;
        ++ticks;
      }
      const absl::StatusOr<SentinelPlan> plan = PlanSentinel(view_, config_.policy, now);
      if (!plan.ok()) {
        error_ = plan.status();
        return result_;
      }
      for (const SentinelProbe& chosen : plan->probes) Start(chosen, now);
    }
    for (SimNode& node : nodes_) {  // the open jobs
      if (node.busy) busy_seconds_ += Overlap(node.since, window_end_, window_begin_, window_end_);
    }
    const double fleet_seconds = static_cast<double>(config_.nodes) * Seconds(config_.measured);
    const auto share = [](int64_t part, int64_t whole) {
      return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 1.0;
    };
    result_.coverage = share(counts.covered, counts.samples);
    result_.coverage_when_idle = share(counts.covered, counts.samples - counts.excused);
    result_.overhead = held_seconds_ / fleet_seconds;  // GPUs per node cancel out
    result_.utilisation = busy_seconds_ / fleet_seconds;
    result_.mean_idle_nodes = ticks ? idle_sum / ticks : 0;
    return result_;
  }

  const absl::Status& error() const { return error_; }

 private:
  double JobSeconds(SimNode& node) {
    std::lognormal_distribution<double> job(mu_, config_.workload.job_sigma);
    return std::min(job(node.rng), Seconds(config_.workload.job_cap));
  }
  double IdleSeconds(SimNode& node) {
    std::exponential_distribution<double> gap(1 / mean_idle_);
    return gap(node.rng);
  }

  void Seed(absl::Time start) {
    nodes_.resize(config_.nodes);
    view_.resize(config_.nodes);
    for (int i = 0; i < config_.nodes; ++i) {
      SimNode& node = nodes_[i];
      node.rng.seed(config_.seed * 1000003 + static_cast<uint64_t>(i));
      std::uniform_real_distribution<double> unit(0, 1);
      // A random point of the node's cycle: in a job (the rest of one) with
      // the utilisation's probability, else in a gap (memoryless).
      node.busy = unit(node.rng) < config_.workload.utilisation;
      node.since = start;
      node.next_change = start + absl::Seconds((node.busy ? JobSeconds(node) * unit(node.rng)
                                                          : IdleSeconds(node)));
      char name[16];
      std::snprintf(name, sizeof(name), "n%04d", i);
      index_[name] = i;
      SentinelNode& view = view_[i];
      view.node.name = name;
      view.last_verdict = validation::Verdict::kHealthy;
      for (int r = 0; r < config_.rails; ++r) {
        view.rail_evidence.emplace_back(start - Seconds(config_.policy.refresh_after) *
                                                    unit(node.rng) * absl::Seconds(1));
      }
    }
  }

  // Tenants come and go up to `now`; a tenant job that wants a node a probe
  // holds makes the probe yield.
  void Advance(absl::Time now) {
    for (SimNode& node : nodes_) {
      while (node.next_change <= now) {
        const absl::Time change = node.next_change;
        if (node.busy) {
          busy_seconds_ += Overlap(node.since, change, window_begin_, window_end_);
          node.next_change = change + absl::Seconds(IdleSeconds(node));
        } else {
          node.idle_gaps.emplace_back(node.since, change);
          while (node.idle_gaps.size() > 1 &&
                 node.idle_gaps.front().second < change - 2 * config_.policy.period) {
            node.idle_gaps.pop_front();
          }
          if (node.probe >= 0 && probes_[node.probe].end > change) {
            Finish(node.probe, change + config_.yield, /*passed=*/false);
          }
          node.next_change = change + absl::Seconds(JobSeconds(node));
        }
        node.busy = !node.busy;
        node.since = change;
      }
    }
  }

  void Complete(absl::Time now) {
    for (size_t p = 0; p < probes_.size(); ++p) {
      if (!probes_[p].over && probes_[p].end <= now) {
        Finish(static_cast<int>(p), probes_[p].end, /*passed=*/true);
      }
    }
    // Keep only the probes in flight (their nodes point at them by index).
    std::vector<Probe> live;
    for (Probe& probe : probes_) {
      if (probe.over) continue;
      nodes_[probe.a].probe = nodes_[probe.b].probe = static_cast<int>(live.size());
      live.push_back(probe);
    }
    probes_ = std::move(live);
  }

  void Finish(int p, absl::Time at, bool passed) {
    Probe& probe = probes_[p];
    probe.over = true;
    held_seconds_ += 2 * Overlap(probe.start, at, window_begin_, window_end_);
    for (int i : {probe.a, probe.b}) {
      nodes_[i].probe = -1;
      if (passed) view_[i].rail_evidence.assign(config_.rails, at);
    }
    held_ -= 2;
    if (!passed && probe.start >= window_begin_) ++result_.preempted;
  }

  void Start(const SentinelProbe& chosen, absl::Time now) {
    Probe probe;
    probe.a = index_.at(chosen.node);
    probe.b = index_.at(chosen.partner);
    probe.start = now;
    probe.end = now + config_.borrow_latency + config_.policy.probe_duration;
    for (int i : {probe.a, probe.b}) {
      std::deque<absl::Time>& starts = nodes_[i].probe_starts;
      starts.push_back(now);
      while (starts.size() > 1 && starts.front() < now - 2 * config_.policy.period) {
        starts.pop_front();
      }
    }
    nodes_[probe.a].probe = nodes_[probe.b].probe = static_cast<int>(probes_.size());
    view_[probe.a].node.held_by_us = view_[probe.b].node.held_by_us = true;
    probes_.push_back(probe);
    held_ += 2;
    result_.max_held = std::max(result_.max_held, held_);
    if (now >= window_begin_) ++result_.probes;
  }

  // Each (node, rail) now: covered (evidence at most a period old), or not
  // and why: the node was never idle long enough since it fell due
  // (excused), every such idle gap had a probe that yielded to a tenant job
  // (lost to yields), or one had none (the planner's miss).
  void Sample(absl::Time now, absl::Duration need, Counts* counts) {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const SentinelNode& view = view_[i];
      const SimNode& node = nodes_[i];
      const absl::Time due = *OldestEvidence(view) + config_.policy.refresh_after;
      bool idle_long_enough = false, unprobed_gap = false;
      auto gap = [&](absl::Time from, absl::Time to) {
        if (Overlap(from, to, due, now) < Seconds(need)) return;
        idle_long_enough = true;
        const absl::Time begin = std::max(from, due);
        unprobed_gap |= std::none_of(node.probe_starts.begin(), node.probe_starts.end(),
                                     [&](absl::Time t) { return t >= begin && t <= to; });
      };
      for (const auto& [from, to] : node.idle_gaps) gap(from, to);
      if (!node.busy) gap(node.since, now);
      for (const std::optional<absl::Time>& rail : view.rail_evidence) {
        const absl::Duration age = now - *rail;
        result_.max_age_hours = std::max(result_.max_age_hours, absl::ToDoubleHours(age));
        ++counts->samples;
        if (age <= config_.policy.period) {
          ++counts->covered;
        } else if (!idle_long_enough) {
          ++counts->excused;
        } else if (unprobed_gap) {
          ++result_.misses;
        } else {
          ++result_.lost_to_yields;
        }
      }
    }
  }

  const SimConfig config_;
  double mu_ = 0, mean_idle_ = 0;
  absl::Time window_begin_, window_end_;
  std::vector<SimNode> nodes_;
  std::vector<SentinelNode> view_;
  std::unordered_map<std::string, int> index_;
  std::vector<Probe> probes_;
  int held_ = 0;
  double held_seconds_ = 0, busy_seconds_ = 0;
  SimResult result_;
  absl::Status error_;
};

}  // namespace

absl::StatusOr<SimResult> RunSentinelSim(const SimConfig& config) {
  const Workload& w = config.workload;
  if (config.nodes < 2 || config.nodes > 100000 || config.rails < 1 || config.rails > 64 ||
      config.gpus_per_node < 1 || config.tick <= absl::ZeroDuration() ||
      config.sample_every < config.tick || config.measured <= absl::ZeroDuration() ||
      config.warmup < absl::ZeroDuration() || config.borrow_latency < absl::ZeroDuration() ||
      config.yield < absl::ZeroDuration() || !(w.utilisation > 0 && w.utilisation < 1) ||
      w.job_median <= absl::ZeroDuration() || !(w.job_sigma > 0) ||
      w.job_cap <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("sentinel simulation: configuration out of range");
  }
  Simulation simulation(config);
  SimResult result = simulation.Run();
  if (!simulation.error().ok()) return simulation.error();
  return result;
}

}  // namespace eb::scheduler::sim
