// eb-coordinator: the master on node0. Registers agents, accepts tests from
// ebctl, assigns ranks, relays the rendezvous, enforces deadlines and
// aggregates results.

#include <signal.h>
#include <string.h>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <utility>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/config/given_flags.h"
#include "common/config/number_flags.h"
#include "common/config/parse_command_line.h"
#include "common/logging/logging.h"
#include "common/net/address.h"
#include "common/process/signals.h"
#include "common/rpc/tls.h"
#include "common/systemd/watchdog_pinger.h"
#include "common/version/version.h"
#include "coordinator/config_file.h"
#include "coordinator/coordinator_server.h"
#include "coordinator/grpc/authz.h"
#include "coordinator/topology_file.h"
#include "spdlog/spdlog.h"

namespace {

// Port of /metrics when --metrics-listen names only a host.
constexpr int kDefaultMetricsPort = 29471;

}  // namespace

int main(int argc, char** argv) {
  // Debian's Abseil is built without NDEBUG, so mutex deadlock detection
  // is on: every lock and unlock walks a process-wide lock graph
  // (GraphCycles: ~5% of the coordinator's CPU with a thousand agents,
  // issue 15). Lock order is checked by the tests (thread annotations,
  // TSan), not on every lock in production.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  eb::common::BlockShutdownSignals();
  // SIGTERM/SIGINT stop the coordinator at every point of its start, not
  // only once it serves (issue 32, item 4).
  std::optional<eb::common::StartupStopGuard> startup_guard("eb-coordinator");
  startup_guard->SetPhase("reading its command line and config file");
  eb::coordinator::CoordinatorSettings settings;
  eb::coordinator::CoordinatorConfig& config = settings.config;
  std::string config_path = eb::coordinator::kDefaultConfigPath;
  std::string listen = config.listen_address;
  int64_t heartbeat_period_ms = absl::ToInt64Milliseconds(config.heartbeat_period);
  int64_t launch_timeout_ms = absl::ToInt64Milliseconds(config.default_launch_timeout);
  int64_t init_timeout_ms = absl::ToInt64Milliseconds(config.default_init_timeout);
  int64_t step_timeout_ms = absl::ToInt64Milliseconds(config.default_step_timeout);
  int64_t stall_timeout_ms = absl::ToInt64Milliseconds(config.stall_floor);
  int64_t test_timeout_ms = absl::ToInt64Milliseconds(config.default_test_timeout);
  int64_t stop_timeout_ms = absl::ToInt64Milliseconds(config.stop_timeout);
  int64_t flap_window_ms = absl::ToInt64Milliseconds(config.scheduler.flap_window);
  int64_t scheduler_command_timeout_ms =
      absl::ToInt64Milliseconds(config.scheduler.command_timeout);
  eb::coordinator::SentinelConfig& sentinel = config.sentinel;
  int64_t sentinel_period_ms = absl::ToInt64Milliseconds(sentinel.period);
  int64_t sentinel_refresh_after_ms = absl::ToInt64Milliseconds(sentinel.refresh_after);
  int64_t sentinel_probe_duration_ms = absl::ToInt64Milliseconds(sentinel.probe_duration);

  CLI::App app{"eb-coordinator: the ebnccl master (registers agents, runs tests)"};
  app.set_version_flag("--version", std::string(eb::kVersion));
  app.add_option("--config", config_path, "TOML config file (flags override it)")
      ->capture_default_str();
  app.add_option("--listen", listen, "Address to serve on, HOST:PORT (port 0 = any free port)")
      ->capture_default_str();
  app.add_option("--heartbeat-period-ms", heartbeat_period_ms, "Heartbeat period asked of agents")
      ->capture_default_str()
      ->transform(eb::common::DurationMsFlag(eb::spec::kHeartbeatPeriodRange));
  app.add_option("--heartbeat-miss-limit", config.heartbeat_miss_limit,
                 "Missed heartbeats before a node is lost")
      ->capture_default_str()
      ->check(eb::common::CountFlag(1, 100));
  app.add_option("--agent-message-burst", config.session_budget.item_burst,
                 "Per-node budget: messages or events one agent session may send at once")
      ->capture_default_str()
      ->check(eb::common::CountFlag(1, 100'000'000));
  app.add_option("--agent-messages-per-second", config.session_budget.items_per_second,
                 "Per-node budget: messages or events a second, sustained")
      ->capture_default_str()
      ->check(eb::common::CountFlag(1, 100'000'000));
  app.add_option("--rendezvous-call-burst", config.rendezvous_budget.call_burst,
                 "Per-node budget with TLS: rendezvous calls at once")
      ->capture_default_str()
      ->check(eb::common::CountFlag(1, 100'000'000));
  app.add_option("--rendezvous-calls-per-second", config.rendezvous_budget.calls_per_second,
                 "Per-node budget with TLS: rendezvous calls a second, sustained")
      ->capture_default_str()
      ->check(eb::common::CountFlag(1, 100'000'000));
  app.add_option("--default-timeout-ms", test_timeout_ms,
                 "Deadline of a whole test unless it sets one")
      ->capture_default_str()
      ->transform(eb::common::DurationMsFlag(eb::spec::kTimeoutRange));
  app.add_option("--launch-timeout-ms", launch_timeout_ms,
                 "Default deadline for workers to start and register")
      ->capture_default_str()
      ->transform(eb::common::DurationMsFlag(eb::spec::kTimeoutRange));
  app.add_option("--init-timeout-ms", init_timeout_ms,
                 "Default deadline for ranks to join the communicator")
      ->capture_default_str()
      ->transform(eb::common::DurationMsFlag(eb::spec::kTimeoutRange));
  app.add_option("--step-timeout-ms", step_timeout_ms, "Default deadline for one size step")
      ->capture_default_str()
      ->transform(eb::common::DurationMsFlag(eb::spec::kTimeoutRange));
  app.add_option("--stall-timeout-ms", stall_timeout_ms,
                 "Floor of the stall limit: no call completed this long inside a size is a hang")
      ->capture_default_str()
      ->transform(eb::common::DurationMsFlag(eb::spec::kTimeoutRange));
  app.add_option("--stop-timeout-ms", stop_timeout_ms,
                 "How long to wait for agents to reap a test's workers")
      ->capture_default_str()
      ->transform(eb::common::DurationMsFlag(eb::spec::kDaemonDurationRange));
  app.add_option("--history-limit", config.history_limit,
                 "Tests kept in the history (oldest finished ones dropped beyond it)")
      ->capture_default_str()
      ->check(eb::common::CountFlag(1, std::numeric_limits<int>::max()));
  app.add_option("--metrics-listen", config.metrics_listen,
                 "Serve Prometheus metrics on HOST:PORT (/metrics; port 0 = any); empty = off");
  app.add_option("--history-path", settings.history_path,
                 "SQLite file keeping the tests' history ('' = memory only)")
      ->capture_default_str();
  app.add_option("--baselines", config.baselines_path,
                 "Baselines TOML for validations (expected busbw by hardware); missing = none")
      ->capture_default_str();
  int64_t tls_reload_ms = absl::ToInt64Milliseconds(config.tls.reload_period);
  app.add_option("--tls-ca", config.tls.ca,
                 "Fleet CA (PEM): client certificates must be issued by it (mutual TLS)");
  app.add_option("--tls-cert", config.tls.cert, "This coordinator's certificate chain (PEM)");
  app.add_option("--tls-key", config.tls.key, "Its private key (PEM, mode 0600)");
  app.add_option("--tls-reload-period-ms", tls_reload_ms,
                 "How often the TLS files are re-read (rotation without restart)")
      ->capture_default_str()
      ->transform(eb::common::DurationMsFlag(eb::spec::kTlsReloadRange));
  std::vector<std::string> tls_roles;
  app.add_option("--tls-role", tls_roles,
                 "IDENTITY=ROLE (viewer, operator, admin) overriding the role of the client "
                 "certificate whose CN is IDENTITY (repeatable; replaces [tls.roles])");
  app.add_flag("--insecure", config.insecure,
               "Allow plaintext on a non-loopback address (every caller is then an admin)");
  eb::coordinator::SchedulerConfig& scheduler = config.scheduler;
  app.add_option("--scheduler", scheduler.kind,
                 "none, slurm or kubernetes: drain confirmed bad nodes, resume recovered ones, "
                 "never test a node that holds a job")
      ->check(CLI::IsMember({"none", "slurm", "kubernetes"}))
      ->capture_default_str();
  app.add_option("--scheduler-partition", scheduler.partition,
                 "Slurm partition ebnccl judges (empty = every node)");
  app.add_flag("--scheduler-dry-run", scheduler.dry_run,
               "Decide and audit drains and resumes, carry out none");
  app.add_option("--scheduler-confirmations", scheduler.confirmations_to_drain,
                 "Confirmed bad verdicts that drain a node")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  app.add_option("--scheduler-passes-to-resume", scheduler.passes_to_resume,
                 "Healthy verdicts that resume a node ebnccl drained")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  app.add_option("--scheduler-flap-window-ms", flap_window_ms,
                 "Bad, good, bad within it: the node stays drained")
      ->check(CLI::Range(int64_t{60000}, int64_t{365} * 24 * 3600 * 1000))
      ->capture_default_str();
  app.add_option("--scheduler-max-drained-percent", scheduler.max_drained_percent,
                 "At most this percentage of the fleet drained by ebnccl")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  app.add_option("--slurm-conf", scheduler.slurm_conf, "SLURM_CONF for Slurm's tools");
  app.add_option("--slurm-bin-dir", scheduler.slurm_bin_dir, "Where Slurm's tools are")
      ->capture_default_str();
  app.add_option("--kubectl", scheduler.kubectl, "kubectl, through which the API is reached")
      ->capture_default_str();
  app.add_option("--kubeconfig", scheduler.kubeconfig, "kubectl's --kubeconfig");
  app.add_option("--kubernetes-server", scheduler.kubernetes_server, "kubectl's --server");
  app.add_option("--kubernetes-namespace", scheduler.kubernetes_namespace,
                 "Namespace of the placeholder pods")
      ->capture_default_str();
  app.add_option("--kubernetes-priority-class", scheduler.kubernetes_priority_class,
                 "PriorityClass of the placeholder pods (the cluster's lowest)")
      ->capture_default_str();
  app.add_option("--kubernetes-gpu-resource", scheduler.kubernetes_gpu_resource,
                 "The GPU resource the placeholder pods ask for")
      ->capture_default_str();
  app.add_option("--scheduler-command-timeout-ms", scheduler_command_timeout_ms,
                 "Deadline of each scheduler command")
      ->check(CLI::Range(100, 600000))
      ->capture_default_str();
  app.add_flag("--sentinel", sentinel.enabled,
               "Probe every node and rail once per period, in pairs borrowed from the "
               "scheduler's idle nodes as a preemptible job");
  app.add_option("--sentinel-period-ms", sentinel_period_ms,
                 "Every (node, rail) probed at least this often")
      ->check(CLI::Range(int64_t{3600} * 1000, int64_t{30} * 24 * 3600 * 1000))
      ->capture_default_str();
  app.add_option("--sentinel-refresh-after-ms", sentinel_refresh_after_ms,
                 "A node is probed once its oldest evidence is this old")
      ->check(CLI::Range(int64_t{60000}, int64_t{30} * 24 * 3600 * 1000))
      ->capture_default_str();
  app.add_option("--sentinel-max-idle-percent", sentinel.max_idle_percent,
                 "At most this percentage of the idle nodes held by probes")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  app.add_option("--sentinel-probe-duration-ms", sentinel_probe_duration_ms,
                 "How long one probe holds its pair")
      ->check(CLI::Range(int64_t{10000}, int64_t{3600} * 1000))
      ->capture_default_str();
  app.add_option("--sentinel-pair-unknown-nodes", sentinel.pair_unknown_nodes,
                 "With no known-good partner idle, two due nodes probe each other")
      ->capture_default_str();
  app.add_option("--sentinel-partition", sentinel.partition,
                 "Slurm partition of the probe job (empty = the scheduler's)");
  app.add_option("--sentinel-qos", sentinel.qos,
                 "Slurm QOS of the probe job: one tenant jobs preempt");
  app.add_option("--topology-file", config.topology.file,
                 "Fabric map: ibnetdiscover's output or the TOML map (empty = none)");
  app.add_option("--topology-format", config.topology.format,
                 "auto, ibnetdiscover or toml: the reader of --topology-file")
      ->check(CLI::IsMember({eb::topology::kFormatAuto, eb::topology::kFormatIbnetdiscover,
                             eb::topology::kFormatToml}))
      ->capture_default_str();
  app.add_option("--log-level", settings.log_level, "trace, debug, info, warn, error")
      ->capture_default_str();
  app.add_option("--log-file", settings.log_file, "Also write the log to this file");
  if (auto exit_code = eb::common::ParseCommandLine(app, argc, argv)) return *exit_code;

  // Precedence: flag > file > default. Flags bound to config fields are
  // already set; the file fills the rest; the *_ms flags are copied only
  // when given, so that their defaults do not overwrite the file.
  const std::set<std::string> given = eb::common::GivenFlags(app);
  if (auto status = eb::coordinator::ApplyCoordinatorConfigFile(
          config_path, given.contains("--config"), given, &settings);
      !status.ok()) {
    std::fprintf(stderr, "eb-coordinator: %s\n", std::string(status.message()).c_str());
    return 2;
  }
  if (given.contains("--listen")) config.listen_address = listen;
  if (given.contains("--tls-role")) {
    std::map<std::string, std::string> roles;
    for (const std::string& entry : tls_roles) {
      const size_t equals = entry.find('=');
      if (equals == std::string::npos) {
        std::fprintf(stderr, "eb-coordinator: --tls-role: '%s' is not IDENTITY=ROLE\n",
                     entry.c_str());
        return 2;
      }
      roles[entry.substr(0, equals)] = entry.substr(equals + 1);
    }
    if (auto parsed = eb::coordinator::ParseRoleMap(roles); !parsed.ok()) {
      std::fprintf(stderr, "eb-coordinator: --tls-role: %s\n",
                   std::string(parsed.status().message()).c_str());
      return 2;
    }
    config.tls_roles = std::move(roles);
  }
  if (given.contains("--tls-reload-period-ms")) {
    config.tls.reload_period = absl::Milliseconds(tls_reload_ms);
  }
  // Without TLS an unset address is loopback: plaintext only where it is
  // safe (docs/SECURITY.md).
  if (!config.tls.enabled() && !given.contains("--listen") && !settings.listen_set) {
    config.listen_address = absl::StrCat("127.0.0.1:", eb::common::kDefaultCoordinatorPort);
  }
  if (given.contains("--heartbeat-period-ms")) {
    config.heartbeat_period = absl::Milliseconds(heartbeat_period_ms);
  }
  if (given.contains("--launch-timeout-ms")) {
    config.default_launch_timeout = absl::Milliseconds(launch_timeout_ms);
  }
  if (given.contains("--init-timeout-ms")) {
    config.default_init_timeout = absl::Milliseconds(init_timeout_ms);
  }
  if (given.contains("--step-timeout-ms")) {
    config.default_step_timeout = absl::Milliseconds(step_timeout_ms);
  }
  if (given.contains("--stall-timeout-ms"))
    config.stall_floor = absl::Milliseconds(stall_timeout_ms);
  if (given.contains("--default-timeout-ms")) {
    config.default_test_timeout = absl::Milliseconds(test_timeout_ms);
  }
  if (given.contains("--stop-timeout-ms"))
    config.stop_timeout = absl::Milliseconds(stop_timeout_ms);
  config.history_path = settings.history_path;
  if (given.contains("--scheduler-flap-window-ms")) {
    config.scheduler.flap_window = absl::Milliseconds(flap_window_ms);
  }
  if (given.contains("--scheduler-command-timeout-ms")) {
    config.scheduler.command_timeout = absl::Milliseconds(scheduler_command_timeout_ms);
  }
  if (given.contains("--sentinel-period-ms")) {
    sentinel.period = absl::Milliseconds(sentinel_period_ms);
  }
  if (given.contains("--sentinel-refresh-after-ms")) {
    sentinel.refresh_after = absl::Milliseconds(sentinel_refresh_after_ms);
  }
  if (given.contains("--sentinel-probe-duration-ms")) {
    sentinel.probe_duration = absl::Milliseconds(sentinel_probe_duration_ms);
  }
  if (auto status = eb::coordinator::CheckSentinelConfig(sentinel, config.scheduler);
      !status.ok()) {
    std::fprintf(stderr, "eb-coordinator: %s\n", std::string(status.message()).c_str());
    return 2;
  }

  startup_guard->SetPhase("reading its topology file");
  if (auto fabric = eb::coordinator::LoadTopologyFile(config.topology); fabric.ok()) {
    config.topology.loaded = *std::move(fabric);
  } else {
    std::fprintf(stderr, "eb-coordinator: %s\n", std::string(fabric.status().message()).c_str());
    return 2;
  }

  if (auto status = eb::common::InitLogging(
          {"eb-coordinator", settings.log_level, settings.log_file, eb::common::StderrIsJournal()});
      !status.ok()) {
    std::fprintf(stderr, "eb-coordinator: %s\n", std::string(status.message()).c_str());
    return 2;
  }
  auto address = eb::common::ParseHostPort(config.listen_address,
                                           eb::common::kDefaultCoordinatorPort, "--listen", true);
  if (!address.ok()) {
    std::fprintf(stderr, "eb-coordinator: %s\n", std::string(address.status().message()).c_str());
    return 2;
  }
  config.listen_address = address->ToString();
  if (auto status = eb::coordinator::CheckListenSecurity(config, address->host); !status.ok()) {
    std::fprintf(stderr, "eb-coordinator: %s\n", std::string(status.message()).c_str());
    return 2;
  }
  startup_guard->SetPhase("checking its TLS files");
  if (auto status = eb::common::CheckTlsFiles(config.tls); !status.ok()) {
    std::fprintf(stderr, "eb-coordinator: %s\n", std::string(status.message()).c_str());
    return 2;
  }
  if (!config.tls.enabled() && !eb::coordinator::IsLoopbackHost(address->host)) {
    spdlog::warn(
        "INSECURE: serving PLAINTEXT on {} (--insecure): anyone who reaches this port can "
        "register as any node, run and cancel tests and read logs; configure [tls] ca, cert, "
        "key",
        config.listen_address);
  }
  if (!config.metrics_listen.empty()) {
    auto metrics = eb::common::ParseHostPort(config.metrics_listen, kDefaultMetricsPort,
                                             "--metrics-listen", true);
    if (!metrics.ok()) {
      std::fprintf(stderr, "eb-coordinator: %s\n", std::string(metrics.status().message()).c_str());
      return 2;
    }
    config.metrics_listen = metrics->ToString();
  }
  // systemd's WatchdogSec= reaches us as WATCHDOG_USEC (zero outside systemd).
  if (auto watchdog = eb::common::SystemdWatchdogTimeout(); watchdog.ok()) {
    config.watchdog_timeout = *watchdog;
  } else {
    spdlog::warn("systemd watchdog disabled: {}", watchdog.status().ToString());
  }

  startup_guard->SetPhase("starting its server (history, baselines, listeners)");
  auto server = eb::coordinator::CoordinatorServer::Start(config);
  if (!server.ok()) {
    spdlog::error("cannot start: {}", server.status().ToString());
    return 1;
  }
  spdlog::info(
      "eb-coordinator {} listening on {}:{} (heartbeat {} ms x {}, launch/init/step "
      "timeouts {}/{}/{} ms, metrics port {}, watchdog {} ms, history {} keeping {}, {})",
      eb::kVersion, address->host, (*server)->port(),
      absl::ToInt64Milliseconds(config.heartbeat_period), config.heartbeat_miss_limit,
      absl::ToInt64Milliseconds(config.default_launch_timeout),
      absl::ToInt64Milliseconds(config.default_init_timeout),
      absl::ToInt64Milliseconds(config.default_step_timeout), (*server)->metrics_port(),
      absl::ToInt64Milliseconds(config.watchdog_timeout),
      config.history_path.empty() ? "in memory" : config.history_path, config.history_limit,
      config.tls.enabled()
          ? absl::StrCat("mutual TLS, CA ", config.tls.ca, ", cert ", config.tls.cert, ", ",
                         config.tls_roles.size(), " role mapping(s)")
          : std::string("plaintext"));
  if (const auto& loaded = config.topology.loaded) {
    spdlog::info("topology {} ({}): {} node-side cables, {} uplinks", config.topology.file,
                 loaded->format, loaded->fabric.cables.size(), loaded->fabric.uplinks.size());
  }
  // From here a signal is read by the main thread and stops the server cleanly.
  startup_guard.reset();
  const int signal_number = eb::common::WaitForShutdownSignal();
  spdlog::info("received {}; shutting down", sigabbrev_np(signal_number));
  (*server)->Shutdown();
  return 0;
}
