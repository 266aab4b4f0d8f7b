#include "coordinator/config_file.h"

#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/config/tls_keys.h"
#include "common/net/address.h"
#include "common/spec/limits.h"
#include "common/spec/numbers.h"
#include "coordinator/core/roles.h"

namespace eb::coordinator {

namespace {

// Passed to sinfo/sbatch as --partition=VALUE, --qos=VALUE: a plain word.
absl::Status CheckSlurmWord(absl::string_view value) {
  for (char c : value) {
    if (!absl::ascii_isalnum(c) && c != '_' && c != '-' && c != '.') {
      return absl::InvalidArgumentError("a Slurm name: letters, digits, '_', '-', '.'");
    }
  }
  return absl::OkStatus();
}

// A Kubernetes object name (namespace, PriorityClass) or resource name
// ("nvidia.com/gpu"): it goes into request paths and bodies.
absl::Status CheckKubernetesName(absl::string_view value) {
  if (value.empty() || value.size() > 253) {
    return absl::InvalidArgumentError("a Kubernetes name: 1 to 253 characters");
  }
  for (char c : value) {
    if (!absl::ascii_islower(c) && !absl::ascii_isdigit(c) && c != '-' && c != '.' && c != '/') {
      return absl::InvalidArgumentError("a Kubernetes name: a-z, 0-9, '-', '.', '/'");
    }
  }
  return absl::OkStatus();
}

// [scheduler] (issue 30); the decision core checks the policy again.
void AddSchedulerKeys(common::ConfigSchema& schema, SchedulerConfig* scheduler) {
  schema.Choice("scheduler.kind", &scheduler->kind, {"none", "slurm", "kubernetes"})
      .Flag("--scheduler");
  schema.String("scheduler.partition", &scheduler->partition, CheckSlurmWord)
      .Flag("--scheduler-partition");
  schema.Bool("scheduler.dry_run", &scheduler->dry_run).Flag("--scheduler-dry-run");
  schema.Int("scheduler.confirmations_to_drain", &scheduler->confirmations_to_drain, 1, 100)
      .Flag("--scheduler-confirmations");
  schema.Int("scheduler.passes_to_resume", &scheduler->passes_to_resume, 1, 100)
      .Flag("--scheduler-passes-to-resume");
  schema
      .Duration("scheduler.flap_window", &scheduler->flap_window, absl::Minutes(1),
                absl::Hours(24 * 365))
      .Flag("--scheduler-flap-window-ms");
  schema.Int("scheduler.max_drained_percent", &scheduler->max_drained_percent, 0, 100)
      .Flag("--scheduler-max-drained-percent");
  schema.String("scheduler.slurm_conf", &scheduler->slurm_conf).Flag("--slurm-conf");
  schema.String("scheduler.slurm_bin_dir", &scheduler->slurm_bin_dir).Flag("--slurm-bin-dir");
  schema.String("scheduler.kubectl", &scheduler->kubectl).Flag("--kubectl");
  schema.String("scheduler.kubeconfig", &scheduler->kubeconfig).Flag("--kubeconfig");
  schema.String("scheduler.kubernetes_server", &scheduler->kubernetes_server)
      .Flag("--kubernetes-server");
  schema
      .String("scheduler.kubernetes_namespace", &scheduler->kubernetes_namespace,
              CheckKubernetesName)
      .Flag("--kubernetes-namespace");
  schema
      .String("scheduler.kubernetes_priority_class", &scheduler->kubernetes_priority_class,
              CheckKubernetesName)
      .Flag("--kubernetes-priority-class");
  schema
      .String("scheduler.kubernetes_gpu_resource", &scheduler->kubernetes_gpu_resource,
              CheckKubernetesName)
      .Flag("--kubernetes-gpu-resource");
  schema
      .Duration("scheduler.command_timeout", &scheduler->command_timeout, absl::Milliseconds(100),
                absl::Minutes(10))
      .Flag("--scheduler-command-timeout-ms");
}

// [sentinel] (issue 30, part 3); CheckSentinelConfig relates the keys, and
// the planner checks its policy again.
void AddSentinelKeys(common::ConfigSchema& schema, SentinelConfig* sentinel) {
  schema.Bool("sentinel.enabled", &sentinel->enabled).Flag("--sentinel");
  schema.Duration("sentinel.period", &sentinel->period, absl::Hours(1), absl::Hours(24 * 30))
      .Flag("--sentinel-period-ms");
  schema
      .Duration("sentinel.refresh_after", &sentinel->refresh_after, absl::Minutes(1),
                absl::Hours(24 * 30))
      .Flag("--sentinel-refresh-after-ms");
  schema.Int("sentinel.max_idle_percent", &sentinel->max_idle_percent, 0, 100)
      .Flag("--sentinel-max-idle-percent");
  schema
      .Duration("sentinel.probe_duration", &sentinel->probe_duration, absl::Seconds(10),
                absl::Hours(1))
      .Flag("--sentinel-probe-duration-ms");
  schema.Bool("sentinel.pair_unknown_nodes", &sentinel->pair_unknown_nodes)
      .Flag("--sentinel-pair-unknown-nodes");
  schema.String("sentinel.partition", &sentinel->partition, CheckSlurmWord)
      .Flag("--sentinel-partition");
  schema.String("sentinel.qos", &sentinel->qos, CheckSlurmWord).Flag("--sentinel-qos");
}

// [topology] (issue 31): the file is read after flags and file are applied
// (LoadTopologyFile), so that --topology-file overrides the key first.
void AddTopologyKeys(common::ConfigSchema& schema, TopologyConfig* topology) {
  schema.String("topology.file", &topology->file).Flag("--topology-file");
  schema
      .Choice("topology.format", &topology->format,
              {topology::kFormatAuto, topology::kFormatIbnetdiscover, topology::kFormatToml})
      .Flag("--topology-format");
}

// The per-node budgets (docs/SECURITY.md, "Per-node budget"); the
// defaults hold what an honest node sends with room.
void AddLimitsKeys(common::ConfigSchema& schema, CoordinatorConfig* config) {
  schema.Int("limits.agent_message_burst", &config->session_budget.item_burst, 1, 100'000'000)
      .Flag("--agent-message-burst");
  schema
      .Int("limits.agent_messages_per_second", &config->session_budget.items_per_second, 1,
           100'000'000)
      .Flag("--agent-messages-per-second");
  schema.Int("limits.rendezvous_call_burst", &config->rendezvous_budget.call_burst, 1, 100'000'000)
      .Flag("--rendezvous-call-burst");
  schema
      .Int("limits.rendezvous_calls_per_second", &config->rendezvous_budget.calls_per_second, 1,
           100'000'000)
      .Flag("--rendezvous-calls-per-second");
}

void AddTimeoutKeys(common::ConfigSchema& schema, CoordinatorConfig* config) {
  // The deadlines sent to agents: the range every agent accepts (P2-2.7).
  const spec::DurationRange& timeouts = spec::kTimeoutRange;
  schema.Duration("timeouts.test", &config->default_test_timeout, timeouts.min, timeouts.max)
      .Flag("--default-timeout-ms");
  schema.Duration("timeouts.launch", &config->default_launch_timeout, timeouts.min, timeouts.max)
      .Flag("--launch-timeout-ms");
  schema.Duration("timeouts.init", &config->default_init_timeout, timeouts.min, timeouts.max)
      .Flag("--init-timeout-ms");
  schema.Duration("timeouts.step", &config->default_step_timeout, timeouts.min, timeouts.max)
      .Flag("--step-timeout-ms");
  schema.Duration("timeouts.stall", &config->stall_floor, timeouts.min, timeouts.max)
      .Flag("--stall-timeout-ms");
  schema.Duration("timeouts.stop", &config->stop_timeout).Flag("--stop-timeout-ms");
}

}  // namespace

absl::Status CheckSentinelConfig(const SentinelConfig& sentinel, const SchedulerConfig& scheduler) {
  if (!sentinel.enabled) return absl::OkStatus();
  if (scheduler.kind == "none") {
    return absl::InvalidArgumentError(
        "sentinel.enabled: the sentinel borrows idle nodes through the scheduler; set "
        "[scheduler] kind (--scheduler)");
  }
  // The flags reach the fields without the file's per-key checks.
  for (const auto& [key, value] :
       {std::pair<const char*, const std::string&>{"sentinel.partition", sentinel.partition},
        {"sentinel.qos", sentinel.qos}}) {
    if (absl::Status word = CheckSlurmWord(value); !word.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(key, ": ", word.message()));
    }
  }
  if (sentinel.refresh_after > sentinel.period) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sentinel.refresh_after: ", spec::FormatDurationShort(sentinel.refresh_after),
        " is longer than sentinel.period (", spec::FormatDurationShort(sentinel.period), ")"));
  }
  if (sentinel.probe_duration >= sentinel.refresh_after) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sentinel.probe_duration: ", spec::FormatDurationShort(sentinel.probe_duration),
        " is not shorter than sentinel.refresh_after (",
        spec::FormatDurationShort(sentinel.refresh_after), ")"));
  }
  return absl::OkStatus();
}

common::ConfigSchema CoordinatorConfigSchema(CoordinatorSettings* settings) {
  common::ConfigSchema schema;
  CoordinatorConfig& config = settings->config;

  schema
      .AddString(
          "coordinator.listen",
          [&config, settings](const std::string& value) -> absl::Status {
            settings->listen_set = true;
            auto address =
                common::ParseHostPort(value, common::kDefaultCoordinatorPort, "listen", true);
            if (!address.ok()) {
              // ParseHostPort names the field first; the schema names the key.
              return absl::InvalidArgumentError(
                  std::string(absl::StripPrefix(address.status().message(), "listen: ")));
            }
            config.listen_address = address->ToString();
            return absl::OkStatus();
          },
          [&config] { return config.listen_address; })
      .Flag("--listen");

  schema
      // The agents refuse a period outside these bounds (launch_check.h):
      // 0 made them spin (SECURITY_FINDINGS case 5).
      .Duration("heartbeat.period", &config.heartbeat_period, spec::kHeartbeatPeriodRange.min,
                spec::kHeartbeatPeriodRange.max)
      .Flag("--heartbeat-period-ms");
  schema.Int("heartbeat.miss_limit", &config.heartbeat_miss_limit, 1, 100)
      .Flag("--heartbeat-miss-limit");
  AddTimeoutKeys(schema, &config);

  schema.Int("history.limit", &config.history_limit, 1, std::numeric_limits<int>::max())
      .Flag("--history-limit");
  schema.String("history.path", &settings->history_path).Flag("--history-path");
  schema.String("validation.baselines", &config.baselines_path).Flag("--baselines");

  // Checked here so that a bad value names the file, line and key; main()
  // resolves the default port.
  schema.String("metrics.listen", &config.metrics_listen, common::CheckListenAddress)
      .Flag("--metrics-listen");

  schema.Bool("coordinator.insecure", &config.insecure).Flag("--insecure");
  common::AddTlsKeys(schema, &config.tls);
  schema
      .AddStringTable(
          "tls.roles",
          [&config](const common::StringTable& table) -> absl::Status {
            std::map<std::string, std::string> roles(table.begin(), table.end());
            if (auto parsed = ParseRoleMap(roles); !parsed.ok()) return parsed.status();
            config.tls_roles = std::move(roles);
            return absl::OkStatus();
          },
          [&config] {
            return common::StringTable(config.tls_roles.begin(), config.tls_roles.end());
          })
      .Flag("--tls-role");

  AddSchedulerKeys(schema, &config.scheduler);
  AddSentinelKeys(schema, &config.sentinel);
  AddTopologyKeys(schema, &config.topology);
  AddLimitsKeys(schema, &config);

  schema
      .Choice("log.level", &settings->log_level,
              {"trace", "debug", "info", "warn", "error", "critical", "off"})
      .Flag("--log-level");
  schema.String("log.file", &settings->log_file).Flag("--log-file");
  return schema;
}

bool IsLoopbackHost(const std::string& host) {
  return absl::StartsWith(host, "127.") || host == "::1" || host == "[::1]" || host == "localhost";
}

absl::Status CheckListenSecurity(const CoordinatorConfig& config, const std::string& host) {
  if (config.tls.enabled() || config.insecure || IsLoopbackHost(host)) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "--listen ", config.listen_address,
      ": serving plaintext on a non-loopback address lets anyone who reaches the port run and "
      "cancel tests and register as any node; configure TLS ([tls] ca, cert, key or --tls-ca, "
      "--tls-cert, --tls-key) or pass --insecure"));
}

absl::Status ApplyCoordinatorConfigFile(const std::string& path, bool required,
                                        const std::set<std::string>& given_flags,
                                        CoordinatorSettings* settings) {
  auto file = common::TomlFile::Load(path, required);
  if (!file.ok()) return file.status();
  return CoordinatorConfigSchema(settings).Apply(*file, given_flags);
}

}  // namespace eb::coordinator
