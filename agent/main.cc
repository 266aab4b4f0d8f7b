// eb-agent: the long-running service on every node. Registers with the
// coordinator, heartbeats, reports the node's inventory, and for each test
// spawns and supervises one eb-worker per slot (GPU).

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "agent/agent_server.h"
#include "agent/config_file.h"
#include "agent/core/config_check.h"
#include "agent/core/env_policy.h"
#include "agent/core/fabric_config.h"
#include "agent/core/inventory.h"
#include "agent/effective_config.h"
#include "agent/host/child_nvml.h"
#include "agent/host/real_host_probe.h"
#include "agent/startup.h"
#include "common/config/given_flags.h"
#include "common/config/number_flags.h"
#include "common/config/parse_command_line.h"
#include "common/logging/logging.h"
#include "common/net/address.h"
#include "common/net/interfaces.h"
#include "common/process/signals.h"
#include "common/process/subreaper.h"
#include "common/systemd/watchdog_pinger.h"
#include "common/version/version.h"
#include "spdlog/spdlog.h"

extern char** environ;

namespace {

constexpr int kExitUsage = 2;

int UsageError(const std::string& message) {
  std::fprintf(stderr, "eb-agent: %s\n", message.c_str());
  return kExitUsage;
}

// --check-config: the effective configuration, then each check against this
// host; 0 when all pass.
int CheckConfig(const eb::agent::AgentSettings& settings) {
  std::fputs(eb::agent::FormatEffectiveConfig(settings).c_str(), stdout);
  eb::agent::RealHostProbe probe;
  const auto results = eb::agent::CheckAgentConfig(settings.config, probe);
  for (const auto& result : results)
    std::printf("%s\n", eb::agent::FormatCheckResult(result).c_str());
  return eb::agent::AllChecksPassed(results) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  // Debian's Abseil is built without NDEBUG, so mutex deadlock detection
  // is on: every lock and unlock walks a process-wide lock graph
  // (GraphCycles: ~5% of the coordinator's CPU with a thousand agents,
  // issue 15). Lock order is checked by the tests (thread annotations,
  // TSan), not on every lock in production.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // The daemon's GPU-details probe (agent/host/child_nvml.h): checked first,
  // it takes no other flag and starts nothing.
  if (argc == 2 && strcmp(argv[1], eb::agent::kPrintGpuDetailsFlag) == 0) {
    return eb::agent::PrintGpuDetails();
  }
  eb::common::BlockShutdownSignals();
  // SIGTERM/SIGINT stop the agent at every point of its start, not only
  // once it runs (issue 32, item 4).
  std::optional<eb::common::StartupStopGuard> startup_guard("eb-agent");
  startup_guard->SetPhase("reading its command line and config file");
  eb::agent::AgentSettings settings;
  eb::agent::AgentConfig& config = settings.config;
  std::string config_path = eb::agent::kDefaultConfigPath;
  bool check_config = false;
  std::string ib_hca;
  int64_t grace_ms = absl::ToInt64Milliseconds(config.worker_grace);
  int64_t hang_ms = absl::ToInt64Milliseconds(config.worker_hang_timeout);
  int64_t worker_heartbeat_ms = absl::ToInt64Milliseconds(config.worker_heartbeat_period);
  int64_t socket_linger_ms = absl::ToInt64Milliseconds(config.worker_socket_linger);

  CLI::App app{"eb-agent: the ebnccl node service (spawns one worker per GPU for each test)"};
  app.set_version_flag("--version", std::string(eb::kVersion));
  app.add_option("--config", config_path, "TOML config file (flags override it)")
      ->capture_default_str();
  app.add_flag("--check-config", check_config,
               "Print the effective configuration, check it against this host, exit 0 or 1");
  app.add_option("--coordinator", config.coordinator_address,
                 "Coordinator address HOST[:PORT] (default port 29470)");
  app.add_option("--node-name", config.node_name, "Unique name of this node (default: host name)");
  app.add_option("--workers", settings.workers,
                 "Worker slots (ranks per test) on this node (default or 0: the GPU count, "
                 "or 1)")
      ->check(eb::common::CountFlag(0, eb::spec::kMaxWorkerSlots));
  app.add_option("--bootstrap-interface", config.bootstrap_interface,
                 "NIC for bootstrap and Gloo traffic (NCCL_SOCKET_IFNAME), e.g. eth0");
  app.add_option("--bootstrap-address", config.bootstrap_address,
                 "Local address the workers bind when no interface is given, e.g. 10.0.0.2");
  app.add_option("--transport", config.transport, "Transports offered: auto, gloo or nccl")
      ->check(CLI::IsMember({"auto", "gloo", "nccl"}))
      ->capture_default_str();
  app.add_option("--ib-hca", ib_hca,
                 "HCA[:PORT] list NCCL may use, e.g. mlx5_100,mlx5_101 (written to NCCL_IB_HCA in "
                 "exact-match '=' form; checked against /sys/class/infiniband)");
  app.add_option("--ib-gid-index", config.ib_gid_index,
                 "NCCL_IB_GID_INDEX for RoCE (e.g. 3; -1 = not set)")
      ->check(eb::common::CountFlag(-1, 255));
  app.add_option("--nccl-ras-port-base", config.nccl_ras_port_base,
                 "First local port of NCCL's RAS service for NCCL tests: each running test gets "
                 "its own of [base, base + worker slots) as NCCL_RAS_ADDR, queried when the test "
                 "fails or times out; 0 = leave NCCL_RAS_ADDR alone, no query")
      ->capture_default_str()
      ->check(eb::common::CountFlag(0, 65535));
  app.add_option("--sysfs-pci", config.sysfs_pci,
                 "Where PCI devices are listed by bus id (GPU-HCA affinity)")
      ->capture_default_str();
  app.add_option("--sysfs-infiniband", config.sysfs_infiniband, "Where the HCAs are listed")
      ->capture_default_str();
  app.add_option("--gpus", config.gpu_indices,
                 "Indices (PCI bus order) of the GPUs this agent owns, e.g. 0,1,2,3 (default: all)")
      ->delimiter(',')
      ->check(eb::common::CountFlag(0, eb::spec::kMaxWorkerSlots - 1));
  app.add_option("--host-id", config.host_id,
                 "Identity of this machine for the check that agents of one host never put two "
                 "ranks on one GPU (default: the kernel's boot id)");
  app.add_option("--worker-binary", config.worker_binary,
                 "Path of eb-worker (default: beside eb-agent)");
  app.add_option("--run-dir", config.run_dir,
                 "Directory for the worker socket and per-test logs (default /run/ebnccl/NODE, "
                 "or /tmp/ebnccl-UID/NODE when not root)");
  app.add_option("--worker-env", config.worker_env,
                 "KEY=VALUE added to every worker's environment (repeatable), e.g. "
                 "NCCL_DEBUG=INFO; not NCCL_IB_HCA, NCCL_SOCKET_IFNAME (use --ib-hca, "
                 "--bootstrap-interface), CUDA_VISIBLE_DEVICES or CUDA_DEVICE_ORDER");
  app.add_option("--worker-grace-ms", grace_ms, "SIGTERM to SIGKILL grace for stopped workers")
      ->capture_default_str()
      ->transform(eb::common::DurationMsFlag(eb::spec::kDaemonDurationRange));
  app.add_option("--worker-hang-timeout-ms", hang_ms, "Kill a worker silent for this long")
      ->capture_default_str()
      ->transform(eb::common::DurationMsFlag(eb::spec::kDaemonDurationRange));
  app.add_option("--worker-heartbeat-ms", worker_heartbeat_ms, "Worker heartbeat period")
      ->capture_default_str()
      ->transform(eb::common::DurationMsFlag(eb::spec::kDaemonDurationRange));
  app.add_option("--worker-socket-linger-ms", socket_linger_ms,
                 "Keep the workers' socket open this long after the last test ends")
      ->capture_default_str()
      ->transform(
          eb::common::DurationMsFlag({absl::ZeroDuration(), eb::spec::kDaemonDurationRange.max}));
  app.add_option("--metrics-listen", config.metrics_listen,
                 "Serve Prometheus metrics on HOST:PORT (/metrics; port 0 = any); empty = off");
  int64_t tls_reload_ms = absl::ToInt64Milliseconds(config.tls.reload_period);
  app.add_option("--tls-ca", config.tls.ca,
                 "Fleet CA (PEM): the coordinator's certificate must be issued by it");
  app.add_option("--tls-cert", config.tls.cert,
                 "This node's certificate (PEM; its DNS SAN is the node name)");
  app.add_option("--tls-key", config.tls.key, "Its private key (PEM, mode 0600)");
  app.add_option("--tls-reload-period-ms", tls_reload_ms,
                 "How often the TLS files are re-read (rotation without restart)")
      ->capture_default_str()
      ->transform(eb::common::DurationMsFlag(eb::spec::kTlsReloadRange));
  app.add_option("--log-level", settings.log_level, "trace, debug, info, warn, error")
      ->capture_default_str();
  app.add_option("--log-file", settings.log_file, "Also write the log to this file");
  if (auto exit_code = eb::common::ParseCommandLine(app, argc, argv)) return *exit_code;

  // Precedence: flag > file > default. Flags bound to config fields are
  // already set; the file fills the rest.
  const std::set<std::string> given = eb::common::GivenFlags(app);
  if (auto status = eb::agent::ApplyAgentConfigFile(config_path, given.contains("--config"), given,
                                                    &settings);
      !status.ok()) {
    return UsageError(std::string(status.message()));
  }
  if (given.contains("--tls-reload-period-ms")) {
    config.tls.reload_period = absl::Milliseconds(tls_reload_ms);
  }
  if (given.contains("--worker-grace-ms")) config.worker_grace = absl::Milliseconds(grace_ms);
  if (given.contains("--worker-hang-timeout-ms")) {
    config.worker_hang_timeout = absl::Milliseconds(hang_ms);
  }
  if (given.contains("--worker-heartbeat-ms")) {
    config.worker_heartbeat_period = absl::Milliseconds(worker_heartbeat_ms);
  }
  if (given.contains("--worker-socket-linger-ms")) {
    config.worker_socket_linger = absl::Milliseconds(socket_linger_ms);
  }
  if (given.contains("--ib-hca")) {
    auto hcas = eb::agent::ParseHcaList(ib_hca);
    if (!hcas.ok()) return UsageError(std::string(hcas.status().message()));
    config.ib_hcas = *std::move(hcas);
  }
  startup_guard->SetPhase("resolving its configuration (probing the worker's NCCL)");
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) environment.emplace_back(*entry);
  if (auto status = eb::agent::ResolveAgentConfig(&settings, environment); !status.ok()) {
    return UsageError(std::string(status.message()));
  }
  if (check_config) return CheckConfig(settings);

  if (auto status = eb::common::InitLogging(
          {"eb-agent", settings.log_level, settings.log_file, eb::common::StderrIsJournal()});
      !status.ok()) {
    return UsageError(std::string(status.message()));
  }
  startup_guard->SetPhase("checking the host");
  // A configured interface or HCA that is missing is an error, not a silent
  // fallback to another NIC or to TCP.
  if (auto status = eb::agent::CheckHostForStart(settings); !status.ok()) {
    return UsageError(std::string(status.message()));
  }
  // systemd's WatchdogSec= reaches us as WATCHDOG_USEC (zero outside systemd).
  if (auto watchdog = eb::common::SystemdWatchdogTimeout(); watchdog.ok()) {
    config.watchdog_timeout = *watchdog;
  } else {
    spdlog::warn("systemd watchdog disabled: {}", watchdog.status().ToString());
  }

  // Orphaned descendants of workers are re-parented to the agent and reaped
  // there instead of escaping to init.
  if (auto status = eb::common::Subreaper::Enable(); !status.ok()) {
    spdlog::warn("cannot become a child subreaper: {}", status.ToString());
  }
  for (const std::string& warning : eb::agent::AgentEnvironmentWarnings(environment)) {
    spdlog::warn("{}", warning);
  }

  startup_guard->SetPhase("starting its server");
  auto agent = eb::agent::AgentServer::Start(config, std::move(environment));
  if (!agent.ok()) {
    spdlog::error("cannot start: {}", agent.status().ToString());
    return 1;
  }
  const std::vector<ebnccl::v1::GpuInfo> gpus = eb::agent::AgentGpus(config);
  if (!gpus.empty() && config.transport != "gloo" && !eb::agent::NcclUsable(config, gpus.size())) {
    spdlog::warn(
        "this node has {} GPUs but will not offer NCCL (NCCL library '{}'{}{}, {} slots; "
        "NCCL allows one rank per GPU)",
        gpus.size(), config.nccl_version, config.nccl_problem.empty() ? "" : ": ",
        config.nccl_problem, config.worker_slots);
  }
  spdlog::info(
      "eb-agent {} node={} coordinator={} slots={} gpus={} nccl={} transport={} "
      "bootstrap_interface={} bootstrap_address={} ib_hca={} ib_gid_index={} run_dir={} "
      "worker={} worker_env=[{}] metrics_port={} watchdog_ms={} tls={}",
      eb::kVersion, config.node_name, config.coordinator_address, config.worker_slots, gpus.size(),
      config.nccl_version, config.transport, config.bootstrap_interface, config.bootstrap_address,
      config.ib_hcas.empty() ? "" : eb::agent::NcclIbHcaValue(config.ib_hcas), config.ib_gid_index,
      config.run_dir, config.worker_binary, absl::StrJoin(config.worker_env, " "),
      (*agent)->metrics_port(), absl::ToInt64Milliseconds(config.watchdog_timeout),
      config.tls.enabled() ? config.tls.cert : "off (plaintext)");
  // From here a signal is read by the main thread and stops the agent cleanly.
  startup_guard.reset();
  const int signal_number = eb::common::WaitForShutdownSignal();
  spdlog::info("received SIG{}; stopping workers and shutting down", sigabbrev_np(signal_number));
  (*agent)->Shutdown();
  return 0;
}
