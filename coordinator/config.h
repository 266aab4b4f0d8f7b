#pragma once

// Everything that tunes eb-coordinator, with production defaults. Filled from
// flags in main.cc and passed by value (STYLE.md rule 21); tests shorten the
// timeouts.

#include <map>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "common/rpc/tls_files.h"
#include "coordinator/core/budget/rendezvous_budget.h"
#include "coordinator/core/budget/session_budget.h"
#include "coordinator/core/collective_tests/run_deadlines.h"
#include "coordinator/topology/fabric_source.h"

namespace eb::coordinator {

// [scheduler] (issue 30): hand verdicts back to the scheduler that owns the
// fleet (drain, resume) and never test a node that holds a job. kind "none"
// (the default) keeps ebnccl on its own. The policy knobs are those of the
// decision core (coordinator/scheduler/scheduler_types.h, SchedulerPolicy).
struct SchedulerConfig {
  std::string kind = "none";  // "none", "slurm" or "kubernetes"
  // The partition whose nodes ebnccl judges ("" = every node).
  std::string partition;
  // Decide, record and log, carry out nothing.
  bool dry_run = false;
  int confirmations_to_drain = 1;
  int passes_to_resume = 1;
  absl::Duration flap_window = absl::Hours(24 * 7);
  // At most this percentage of the fleet drained by ebnccl at once (at
  // least one node).
  int max_drained_percent = 10;
  // Slurm: SLURM_CONF for its tools ("" = Slurm's default), where they are.
  std::string slurm_conf;
  std::string slurm_bin_dir = "/usr/bin";
  // Kubernetes: kubectl (the API through its raw requests), its
  // --kubeconfig and --server ("" = kubectl's default), the namespace of
  // the placeholder pods, their PriorityClass (the cluster's lowest) and
  // the GPU resource they ask for.
  std::string kubectl = "/usr/bin/kubectl";
  std::string kubeconfig;
  std::string kubernetes_server;
  std::string kubernetes_namespace = "ebnccl";
  std::string kubernetes_priority_class = "ebnccl-lowest";
  std::string kubernetes_gpu_resource = "nvidia.com/gpu";
  // Deadline of each scheduler command.
  absl::Duration command_timeout = absl::Seconds(10);
};

// [sentinel] (issue 30, part 3): probe every node and rail at least once
// per period, in pairs borrowed from the scheduler's idle nodes as a
// preemptible low-priority job. Off by default; needs a [scheduler] kind.
// The planner's knobs (coordinator/scheduler/sentinel_planner.h).
struct SentinelConfig {
  bool enabled = false;
  absl::Duration period = absl::Hours(24);
  // A node is probed once its oldest evidence is this old (<= period).
  absl::Duration refresh_after = absl::Hours(20);
  // At most this percentage of the idle nodes held by probes at once.
  int max_idle_percent = 10;
  // How long one probe holds its pair.
  absl::Duration probe_duration = absl::Seconds(60);
  // Two due nodes probe each other when no known-good partner is idle.
  bool pair_unknown_nodes = true;
  // The Slurm partition and QOS of the probe job ("" = the scheduler's
  // default): a QOS the site made preemptible by tenant jobs.
  std::string partition;
  std::string qos;
};

// [topology] (issue 31): the fabric map, read once at start (main.cc,
// topology_file.h). Without a file everything behaves as without topology.
struct TopologyConfig {
  // ibnetdiscover's output or the TOML map; "" = none.
  std::string file;
  // "auto", "ibnetdiscover" or "toml" (topology/fabric_source.h says how
  // auto chooses).
  std::string format = topology::kFormatAuto;
  // What was read from `file`; null without one. Shared: the config is
  // passed by value.
  std::shared_ptr<const topology::FabricSource> loaded;
};

struct CoordinatorConfig {
  // Address to listen on ("host:port"; port 0 = any).
  std::string listen_address = "0.0.0.0:29470";
  // Heartbeat period the agents are asked to keep.
  absl::Duration heartbeat_period = absl::Milliseconds(500);
  // Heartbeats an agent may miss before its node is declared lost: 500 ms x
  // 6 = 3 s, a frozen agent named within the 5 s (its liveness is
  // checked every period), before its workers leave on their own
  // (AgentSilenceLimit, 5 s) and so before their peers' calls fail.
  int heartbeat_miss_limit = 6;
  // What one node may send (docs/SECURITY.md, "Per-node budget"): its
  // session's messages or events, and (with TLS) its rendezvous calls.
  SessionBudgetLimits session_budget;
  RendezvousBudgetLimits rendezvous_budget;
  // Defaults for tests that do not set their own deadlines.
  absl::Duration default_test_timeout = absl::Minutes(30);
  absl::Duration default_launch_timeout = absl::Seconds(30);
  absl::Duration default_init_timeout = absl::Seconds(60);
  absl::Duration default_step_timeout = absl::Seconds(120);
  // The floor of the stall limit inside a size (timeouts.stall;
  // collective_tests/stall_watch.h): a size in which no rank completed a
  // call for max(this, 4 calls, 1.5 x the reports' cadence) is stuck.
  absl::Duration stall_floor = kDefaultStallFloor;
  // How long to wait for agents to confirm that a test's workers are gone
  // before the test is finalized anyway.
  absl::Duration stop_timeout = absl::Seconds(20);
  // Tests kept in the history for GetTest/ListTests (`ebctl tests`, `ebctl
  // show`); beyond it the oldest finished ones are dropped.
  int history_limit = 1000;
  // SQLite file of the history, kept across restarts (its directory must
  // exist: the package and the unit's StateDirectory= create it). "" keeps
  // the history in memory only.
  std::string history_path = "/var/lib/ebnccl/history.db";
  // Expected busbw by hardware for validations (deploy/config/baselines.toml
  // installed); a missing file leaves verdicts to the fleet median.
  std::string baselines_path = "/etc/ebnccl/baselines.toml";
  // Deadline of a validation that sets none.
  absl::Duration default_validation_timeout = absl::Hours(6);
  // "host:port" of the Prometheus /metrics endpoint (port 0 = any); "" = none.
  std::string metrics_listen;
  // systemd's WatchdogSec (from WATCHDOG_USEC, read in main); zero = no
  // watchdog pings.
  absl::Duration watchdog_timeout = absl::ZeroDuration();
  // Mutual TLS for every connection ([tls] ca, cert, key). Without it the
  // coordinator serves plaintext, on loopback only unless `insecure`.
  common::TlsFiles tls;
  // [tls.roles]: certificate identity (CN) -> "viewer", "operator" or
  // "admin", overriding the role the certificate carries.
  std::map<std::string, std::string> tls_roles;
  // Allows plaintext on a non-loopback address (--insecure): every caller
  // is then an admin.
  bool insecure = false;
  // Lost nodes are forgotten this long after they were lost (a flood of
  // registrations must not grow the coordinator forever; docs/SECURITY.md,
  // "Limits").
  absl::Duration lost_node_retention = absl::Hours(24);
  SchedulerConfig scheduler;
  SentinelConfig sentinel;
  TopologyConfig topology;
};

}  // namespace eb::coordinator
