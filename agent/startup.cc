#include "agent/startup.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "agent/core/env_policy.h"
#include "agent/core/fabric_config.h"
#include "agent/core/gpu_discovery.h"
#include "agent/core/worker_spec.h"
#include "agent/host/child_probe.h"
#include "agent/host/infiniband_sysfs.h"
#include "agent/host/nccl_probe.h"
#include "agent/host/nvidia_driver.h"
#include "common/net/address.h"
#include "common/net/interfaces.h"
#include "common/process/posix_process_launcher.h"
#include "common/rpc/tls.h"
#include "spdlog/spdlog.h"

namespace eb::agent {
namespace {

// Port of /metrics when metrics.listen names only a host.
constexpr int kDefaultMetricsPort = 29472;

std::string Hostname() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

std::string DefaultWorkerBinary() {
  const std::string self = SelfExecutable();
  return self.empty() ? "eb-worker"
                      : (std::filesystem::path(self).parent_path() / "eb-worker").string();
}

std::string DefaultRunDir(const std::string& node_name) {
  const std::string base = geteuid() == 0 ? "/run/ebnccl" : absl::StrCat("/tmp/ebnccl-", geteuid());
  return absl::StrCat(base, "/", node_name);
}

// The workers' NCCL version from the worker itself (nccl_probe.h).
void ProbeNccl(const std::vector<std::string>& agent_env, AgentConfig* config) {
  config->nccl_version.clear();
  config->nccl_problem.clear();
  auto launcher = common::PosixProcessLauncher::Create();
  if (!launcher.ok()) {
    config->nccl_problem = std::string(launcher.status().message());
    return;
  }
  absl::StatusOr<std::string> version =
      ProbeWorkerNcclVersion(**launcher, BuildNcclProbeSpec(*config, agent_env));
  if (!version.ok()) {
    config->nccl_problem = std::string(version.status().message());
  } else if (version->empty()) {
    config->nccl_problem = absl::StrCat(config->worker_binary, " was built without NCCL");
  } else {
    config->nccl_version = *version;
  }
}

}  // namespace

std::vector<ebnccl::v1::GpuInfo> AgentGpus(const AgentConfig& config) {
  return OwnedGpus(config.gpu_indices);
}

absl::Status ResolveAgentConfig(AgentSettings* settings,
                                const std::vector<std::string>& agent_env) {
  AgentConfig& config = settings->config;
  if (config.coordinator_address.empty()) {
    return absl::InvalidArgumentError(
        "--coordinator: not set (pass it, or set agent.coordinator in the config file)");
  }
  auto coordinator = common::ParseHostPort(config.coordinator_address,
                                           common::kDefaultCoordinatorPort, "--coordinator");
  if (!coordinator.ok()) return coordinator.status();
  config.coordinator_address = coordinator->ToString();
  if (config.node_name.empty()) config.node_name = Hostname();
  for (const std::string& entry : config.worker_env) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--worker-env: '", entry, "' is not KEY=VALUE"));
    }
    if (absl::Status status = CheckWorkerEnvVariable(entry.substr(0, eq), entry.substr(eq + 1));
        !status.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--worker-env: ", status.message()));
    }
  }
  if (absl::Status status = CheckAgentEnvironment(agent_env); !status.ok()) return status;
  const size_t gpus = AgentGpus(config).size();
  config.worker_slots =
      settings->workers > 0 ? settings->workers : std::max<int>(1, static_cast<int>(gpus));
  if (config.worker_binary.empty()) config.worker_binary = DefaultWorkerBinary();
  ProbeNccl(agent_env, &config);
  if (config.run_dir.empty()) config.run_dir = DefaultRunDir(config.node_name);
  if (!config.metrics_listen.empty()) {
    auto metrics =
        common::ParseHostPort(config.metrics_listen, kDefaultMetricsPort, "--metrics-listen", true);
    if (!metrics.ok()) return metrics.status();
    config.metrics_listen = metrics->ToString();
  }
  return absl::OkStatus();
}

absl::Status CheckHostForStart(const AgentSettings& settings) {
  const AgentConfig& config = settings.config;
  if (absl::Status tls = common::CheckTlsFiles(config.tls); !tls.ok()) return tls;
  if (absl::Status gpus = CheckGpuIndices(config.gpu_indices, DiscoverGpus().size()); !gpus.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(settings.gpus_origin, ": ", gpus.message()));
  }
  if (!config.bootstrap_interface.empty()) {
    auto address = common::InterfaceAddress(config.bootstrap_interface);
    if (!address.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--bootstrap-interface: ", address.status().message()));
    }
  }
  if (!config.ib_hcas.empty()) {
    auto checked = CheckHcas(config.ib_hcas, config.sysfs_infiniband);
    if (!checked.ok()) return checked.status();
    for (const std::string& warning : HcaWarnings(*checked)) spdlog::warn("{}", warning);
    for (const auto& hca : *checked) {
      spdlog::info("HCA {} port {}: {} {} {} Gb/s", hca.name(), hca.port(), hca.state(),
                   hca.link_layer(), hca.rate_gbps());
    }
  }
  if (access(config.worker_binary.c_str(), X_OK) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--worker-binary: '", config.worker_binary, "' is not an executable file"));
  }
  return absl::OkStatus();
}

}  // namespace eb::agent
