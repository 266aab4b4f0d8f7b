#include "agent/config_file.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "agent/core/env_policy.h"
#include "agent/core/fabric_config.h"
#include "common/config/tls_keys.h"
#include "common/net/address.h"
#include "common/status/status_macros.h"

namespace eb::agent {

namespace {

// The parsers below name their flag first ("--ib-hca: ..."); in a file the
// schema names the key instead.
absl::Status WithoutField(const absl::Status& status, absl::string_view field) {
  return absl::InvalidArgumentError(
      std::string(absl::StripPrefix(status.message(), absl::StrCat(field, ": "))));
}

void AddAgentSection(common::ConfigSchema& schema, AgentSettings* settings) {
  AgentConfig& config = settings->config;
  schema
      .AddString(
          "agent.coordinator",
          [&config](const std::string& value) -> absl::Status {
            if (value.empty()) {
              config.coordinator_address.clear();
              return absl::OkStatus();
            }
            auto address =
                common::ParseHostPort(value, common::kDefaultCoordinatorPort, "coordinator");
            if (!address.ok()) return WithoutField(address.status(), "coordinator");
            config.coordinator_address = address->ToString();
            return absl::OkStatus();
          },
          [&config] { return config.coordinator_address; })
      .Flag("--coordinator");
  schema.String("agent.node_name", &config.node_name).Flag("--node-name");
  schema.Int("agent.workers", &settings->workers, 0, 1024).Flag("--workers");
  schema
      .AddIntList(
          "agent.gpus",
          [&config](const std::vector<int64_t>& value) -> absl::Status {
            std::vector<int> indices;
            for (int64_t index : value) {
              if (index < 0 || index > 1023) {
                return absl::InvalidArgumentError(
                    absl::StrCat("GPU index ", index, " is outside 0..1023"));
              }
              if (std::find(indices.begin(), indices.end(), index) != indices.end()) {
                // Two slots on one GPU: NCCL refuses two ranks per device.
                return absl::InvalidArgumentError(absl::StrCat("GPU ", index, " is listed twice"));
              }
              indices.push_back(static_cast<int>(index));
            }
            config.gpu_indices = std::move(indices);
            return absl::OkStatus();
          },
          [&config] {
            return std::vector<int64_t>(config.gpu_indices.begin(), config.gpu_indices.end());
          })
      .Flag("--gpus");
  schema.String("agent.host_id", &config.host_id).Flag("--host-id");
  schema.Choice("agent.transport", &config.transport, {"auto", "gloo", "nccl"}).Flag("--transport");
  schema.String("agent.run_dir", &config.run_dir).Flag("--run-dir");
  schema.Duration("agent.reconnect_initial", &config.reconnect_initial);
  schema.Duration("agent.reconnect_max", &config.reconnect_max);
}

void AddNetworkSections(common::ConfigSchema& schema, AgentConfig& config) {
  schema.String("network.bootstrap_interface", &config.bootstrap_interface)
      .Flag("--bootstrap-interface");
  schema.String("network.bootstrap_address", &config.bootstrap_address).Flag("--bootstrap-address");

  schema
      .AddStringList(
          "nccl.ib_hca",
          [&config](const std::vector<std::string>& value) -> absl::Status {
            std::vector<HcaPort> hcas;
            for (const std::string& entry : value) {
              auto parsed = ParseHcaList(entry);
              if (!parsed.ok()) return WithoutField(parsed.status(), "--ib-hca");
              hcas.insert(hcas.end(), parsed->begin(), parsed->end());
            }
            config.ib_hcas = std::move(hcas);
            return absl::OkStatus();
          },
          [&config] {
            std::vector<std::string> entries;
            for (const HcaPort& hca : config.ib_hcas) {
              entries.push_back(hca.port > 0 ? absl::StrCat(hca.name, ":", hca.port) : hca.name);
            }
            return entries;
          })
      .Flag("--ib-hca");
  schema.Int("nccl.ib_gid_index", &config.ib_gid_index, -1, 255).Flag("--ib-gid-index");
  schema.Int("nccl.ras_port_base", &config.nccl_ras_port_base, 0, 65535)
      .Flag("--nccl-ras-port-base");
  schema.String("nccl.sysfs_infiniband", &config.sysfs_infiniband).Flag("--sysfs-infiniband");
  schema.String("nccl.sysfs_pci", &config.sysfs_pci).Flag("--sysfs-pci");
}

void AddWorkerSection(common::ConfigSchema& schema, AgentConfig& config) {
  schema.String("worker.binary", &config.worker_binary).Flag("--worker-binary");
  schema.Duration("worker.grace", &config.worker_grace).Flag("--worker-grace-ms");
  schema.Duration("worker.hang_timeout", &config.worker_hang_timeout)
      .Flag("--worker-hang-timeout-ms");
  schema.Duration("worker.heartbeat_period", &config.worker_heartbeat_period)
      .Flag("--worker-heartbeat-ms");
  // Zero: close at the first heartbeat without workers.
  schema.Duration("worker.socket_linger", &config.worker_socket_linger, absl::ZeroDuration())
      .Flag("--worker-socket-linger-ms");
  schema
      .AddStringTable(
          "worker.env",
          [&config](const common::StringTable& table) -> absl::Status {
            std::vector<std::string> entries;
            for (const auto& [name, value] : table) {
              if (name.empty() || name.find('=') != std::string::npos ||
                  name.find('\0') != std::string::npos) {
                return absl::InvalidArgumentError(
                    absl::StrCat(common::TomlQuote(name), " is not an environment variable name"));
              }
              if (value.find('\0') != std::string::npos) {
                return absl::InvalidArgumentError(
                    absl::StrCat("the value of ", name, " contains a NUL character"));
              }
              EB_RETURN_IF_ERROR(CheckWorkerEnvVariable(name, value));
              entries.push_back(absl::StrCat(name, "=", value));
            }
            config.worker_env = std::move(entries);
            return absl::OkStatus();
          },
          [&config] {
            // A later entry for the same name wins, as --worker-env does when
            // the list is applied in order; a table holds each name once.
            common::StringTable table;
            for (const std::string& entry : config.worker_env) {
              const size_t equals = entry.find('=');
              std::string name = entry.substr(0, equals);
              std::string value = equals == std::string::npos ? "" : entry.substr(equals + 1);
              auto same = std::find_if(table.begin(), table.end(),
                                       [&](const auto& pair) { return pair.first == name; });
              if (same != table.end()) {
                same->second = std::move(value);
              } else {
                table.emplace_back(std::move(name), std::move(value));
              }
            }
            std::sort(table.begin(), table.end());
            return table;
          })
      .Flag("--worker-env");
}

}  // namespace

common::ConfigSchema AgentConfigSchema(AgentSettings* settings) {
  common::ConfigSchema schema;
  AddAgentSection(schema, settings);
  AddNetworkSections(schema, settings->config);
  AddWorkerSection(schema, settings->config);
  schema
      .Choice("log.level", &settings->log_level,
              {"trace", "debug", "info", "warn", "error", "critical", "off"})
      .Flag("--log-level");
  schema.String("log.file", &settings->log_file).Flag("--log-file");
  common::AddTlsKeys(schema, &settings->config.tls);
  // Checked here so that a bad value names the file, line and key;
  // ResolveAgentConfig fills in the default port.
  schema.String("metrics.listen", &settings->config.metrics_listen, common::CheckListenAddress)
      .Flag("--metrics-listen");
  return schema;
}

absl::Status ApplyAgentConfigFile(const std::string& path, bool required,
                                  const std::set<std::string>& given_flags,
                                  AgentSettings* settings) {
  auto file = common::TomlFile::Load(path, required);
  if (!file.ok()) return file.status();
  if (absl::Status status = AgentConfigSchema(settings).Apply(*file, given_flags); !status.ok()) {
    return status;
  }
  if (!given_flags.contains("--gpus") && file->Contains("agent.gpus")) {
    settings->gpus_origin = file->Where("agent.gpus");
  }
  return absl::OkStatus();
}

}  // namespace eb::agent
