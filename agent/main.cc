// eb-agent: the long-running service on every node. Registers with the
// coordinator, heartbeats, reports the node's inventory, and for each test
// spawns and supervises one eb-worker per slot (GPU).

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/agent_server.h"
#include "agent/core/fabric_config.h"
#include "agent/core/gpu_discovery.h"
#include "agent/core/inventory.h"
#include "agent/core/nccl_library.h"
#include "common/logging/logging.h"
#include "common/net/address.h"
#include "common/net/interfaces.h"
#include "common/process/signals.h"
#include "common/process/subreaper.h"
#include "common/version/version.h"
#include "spdlog/spdlog.h"

extern char** environ;

namespace {

constexpr int kDefaultCoordinatorPort = 29470;
constexpr int kExitUsage = 2;

std::string Hostname() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

std::string DefaultWorkerBinary() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? "eb-worker" : (self.parent_path() / "eb-worker").string();
}

std::string DefaultRunDir(const std::string& node_name) {
  const std::string base = geteuid() == 0 ? "/run/ebnccl" : absl::StrCat("/tmp/ebnccl-", geteuid());
  return absl::StrCat(base, "/", node_name);
}

int UsageError(const std::string& message) {
  std::fprintf(stderr, "eb-agent: %s\n", message.c_str());
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  eb::common::BlockShutdownSignals();
  eb::agent::AgentConfig config;
  std::string log_level = "info";
  std::string log_file;
  int workers = 0;
  int64_t grace_ms = absl::ToInt64Milliseconds(config.worker_grace);
  int64_t hang_ms = absl::ToInt64Milliseconds(config.worker_hang_timeout);
  int64_t worker_heartbeat_ms = absl::ToInt64Milliseconds(config.worker_heartbeat_period);

  CLI::App app{"eb-agent: the ebnccl node service (spawns one worker per GPU for each test)"};
  app.set_version_flag("--version", std::string(eb::kVersion));
  app.add_option("--coordinator", config.coordinator_address,
                 "Coordinator address HOST[:PORT] (default port 29470)")->required();
  app.add_option("--node-name", config.node_name, "Unique name of this node (default: host name)");
  app.add_option("--workers", workers,
                 "Worker slots (ranks per test) on this node (default: the GPU count, or 1)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--bootstrap-interface", config.bootstrap_interface,
                 "NIC for bootstrap and Gloo traffic (NCCL_SOCKET_IFNAME), e.g. eth0");
  app.add_option("--bootstrap-address", config.bootstrap_address,
                 "Local address the workers bind when no interface is given, e.g. 10.0.0.2");
  app.add_option("--transport", config.transport, "Transports offered: auto, gloo or nccl")
      ->check(CLI::IsMember({"auto", "gloo", "nccl"}))->capture_default_str();
  std::string ib_hca;
  app.add_option("--ib-hca", ib_hca,
                 "HCA[:PORT] list NCCL may use, e.g. mlx5_100,mlx5_101 (written to NCCL_IB_HCA in "
                 "exact-match '=' form; checked against /sys/class/infiniband)");
  app.add_option("--ib-gid-index", config.ib_gid_index, "NCCL_IB_GID_INDEX for RoCE (e.g. 3)")
      ->check(CLI::Range(0, 255));
  app.add_option("--sysfs-infiniband", config.sysfs_infiniband, "Where the HCAs are listed")
      ->capture_default_str();
  app.add_option("--gpus", config.gpu_indices,
                 "CUDA indices of the GPUs this agent owns, e.g. 0,1,2,3 (default: all)")
      ->delimiter(',')->check(CLI::NonNegativeNumber);
  app.add_option("--worker-binary", config.worker_binary, "Path of eb-worker (default: beside eb-agent)");
  app.add_option("--run-dir", config.run_dir,
                 "Directory for the worker socket and per-test logs (default /run/ebnccl/NODE, "
                 "or /tmp/ebnccl-UID/NODE when not root)");
  app.add_option("--worker-env", config.worker_env,
                 "KEY=VALUE added to every worker's environment (repeatable), e.g. NCCL_IB_HCA=...");
  app.add_option("--worker-grace-ms", grace_ms, "SIGTERM to SIGKILL grace for stopped workers")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--worker-hang-timeout-ms", hang_ms, "Kill a worker silent for this long")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--worker-heartbeat-ms", worker_heartbeat_ms, "Worker heartbeat period")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")->capture_default_str();
  app.add_option("--log-file", log_file, "Also write the log to this file");
  CLI11_PARSE(app, argc, argv);

  if (auto status = eb::common::InitLogging({"eb-agent", log_level, log_file}); !status.ok()) {
    return UsageError(std::string(status.message()));
  }
  auto coordinator =
      eb::common::ParseHostPort(config.coordinator_address, kDefaultCoordinatorPort, "--coordinator");
  if (!coordinator.ok()) return UsageError(std::string(coordinator.status().message()));
  config.coordinator_address = coordinator->ToString();
  if (config.node_name.empty()) config.node_name = Hostname();
  for (const std::string& entry : config.worker_env) {
    if (entry.find('=') == std::string::npos || entry.front() == '=') {
      return UsageError(absl::StrCat("--worker-env: '", entry, "' is not KEY=VALUE"));
    }
  }
  if (!config.bootstrap_interface.empty()) {
    // A configured interface that is missing or down is an error, not a
    // silent fallback to another NIC.
    auto address = eb::common::InterfaceAddress(config.bootstrap_interface);
    if (!address.ok()) {
      return UsageError(absl::StrCat("--bootstrap-interface: ", address.status().message()));
    }
  }
  if (!ib_hca.empty()) {
    auto hcas = eb::agent::ParseHcaList(ib_hca);
    if (!hcas.ok()) return UsageError(std::string(hcas.status().message()));
    config.ib_hcas = *std::move(hcas);
    // A configured HCA that does not exist is an error, not a silent
    // fallback to TCP.
    auto checked = eb::agent::CheckHcas(config.ib_hcas, config.sysfs_infiniband);
    if (!checked.ok()) return UsageError(std::string(checked.status().message()));
    for (const std::string& warning : eb::agent::HcaWarnings(*checked)) {
      spdlog::warn("{}", warning);
    }
    for (const auto& hca : *checked) {
      spdlog::info("HCA {} port {}: {} {} {} Gb/s", hca.name(), hca.port(), hca.state(),
                   hca.link_layer(), hca.rate_gbps());
    }
  }
  const size_t host_gpus = eb::agent::DiscoverGpus().size();
  for (int index : config.gpu_indices) {
    if (index >= static_cast<int>(host_gpus)) {
      return UsageError(absl::StrCat("--gpus: GPU ", index, " does not exist (this host has ",
                                     host_gpus, ")"));
    }
  }
  const std::vector<ebnccl::v1::GpuInfo> gpus = eb::agent::OwnedGpus(config.gpu_indices);
  config.nccl_version = eb::agent::ProbeNcclVersion();
  config.worker_slots = workers > 0 ? workers : std::max<int>(1, static_cast<int>(gpus.size()));
  if (config.worker_binary.empty()) config.worker_binary = DefaultWorkerBinary();
  if (access(config.worker_binary.c_str(), X_OK) != 0) {
    return UsageError(absl::StrCat("--worker-binary: '", config.worker_binary,
                                   "' is not an executable file"));
  }
  if (config.run_dir.empty()) config.run_dir = DefaultRunDir(config.node_name);
  config.worker_grace = absl::Milliseconds(grace_ms);
  config.worker_hang_timeout = absl::Milliseconds(hang_ms);
  config.worker_heartbeat_period = absl::Milliseconds(worker_heartbeat_ms);

  // Orphaned descendants of workers are re-parented to the agent and reaped
  // there instead of escaping to init.
  if (auto status = eb::common::Subreaper::Enable(); !status.ok()) {
    spdlog::warn("cannot become a child subreaper: {}", status.ToString());
  }
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) environment.emplace_back(*entry);

  auto agent = eb::agent::AgentServer::Start(config, std::move(environment));
  if (!agent.ok()) {
    spdlog::error("cannot start: {}", agent.status().ToString());
    return 1;
  }
  if (!gpus.empty() && config.transport != "gloo" && !eb::agent::NcclUsable(config, gpus.size())) {
    spdlog::warn("this node has {} GPUs but will not offer NCCL (NCCL library '{}', {} slots; "
                 "NCCL allows one rank per GPU)", gpus.size(), config.nccl_version,
                 config.worker_slots);
  }
  spdlog::info("eb-agent {} node={} coordinator={} slots={} gpus={} nccl={} transport={} "
               "bootstrap_interface={} bootstrap_address={} ib_hca={} ib_gid_index={} run_dir={} "
               "worker={} worker_env=[{}]",
               eb::kVersion, config.node_name, config.coordinator_address, config.worker_slots,
               gpus.size(), config.nccl_version, config.transport, config.bootstrap_interface,
               config.bootstrap_address,
               config.ib_hcas.empty() ? "" : eb::agent::NcclIbHcaValue(config.ib_hcas),
               config.ib_gid_index, config.run_dir, config.worker_binary,
               absl::StrJoin(config.worker_env, " "));
  const int signal_number = eb::common::WaitForShutdownSignal();
  spdlog::info("received SIG{}; stopping workers and shutting down", sigabbrev_np(signal_number));
  (*agent)->Shutdown();
  return 0;
}
