#include "agent/core/config_check.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "agent/core/env_policy.h"
#include "agent/core/gpu_discovery.h"
#include "common/gpu/pci_bus_id.h"

namespace eb::agent {

namespace {

CheckResult Ok(std::string name, std::string detail) {
  return {std::move(name), true, std::move(detail)};
}

CheckResult Fail(std::string name, std::string detail) {
  return {std::move(name), false, std::move(detail)};
}

std::string HcaName(const HcaPort& hca) {
  return hca.port > 0 ? absl::StrCat(hca.name, ":", hca.port) : hca.name;
}

CheckResult CheckCoordinator(const AgentCoreConfig& config, const HostProbe& probe,
                             const CheckOptions& options) {
  if (config.coordinator_address.empty()) {
    return Fail("coordinator", "not set (agent.coordinator or --coordinator)");
  }
  const absl::Status status = probe.Connect(config.coordinator_address, options.connect_timeout);
  if (!status.ok()) {
    return Fail("coordinator", absl::StrCat(config.coordinator_address, ": ", status.message()));
  }
  return Ok("coordinator", absl::StrCat(config.coordinator_address, " accepts connections"));
}

std::vector<CheckResult> CheckNetwork(const AgentCoreConfig& config, const HostProbe& probe) {
  std::vector<CheckResult> results;
  if (config.bootstrap_interface.empty() && config.bootstrap_address.empty()) {
    results.push_back(Ok("bootstrap_interface", "not set: workers bind by host name"));
    return results;
  }
  auto interfaces = probe.Interfaces();
  if (!interfaces.ok()) {
    results.push_back(Fail("bootstrap_interface", std::string(interfaces.status().message())));
    return results;
  }
  if (config.bootstrap_interface.empty()) {
    results.push_back(Ok("bootstrap_interface", "not set: workers bind bootstrap_address"));
  } else {
    const std::string& name = config.bootstrap_interface;
    auto found = std::find_if(interfaces->begin(), interfaces->end(),
                              [&](const common::InterfaceInfo& info) { return info.name == name; });
    if (found == interfaces->end()) {
      std::vector<std::string> names;
      for (const common::InterfaceInfo& info : *interfaces) names.push_back(info.name);
      results.push_back(Fail(
          "bootstrap_interface",
          absl::StrCat(name, " does not exist (this host has ", absl::StrJoin(names, ", "), ")")));
    } else if (!found->up) {
      results.push_back(Fail("bootstrap_interface", absl::StrCat(name, " is down")));
    } else if (found->addresses.empty()) {
      results.push_back(Fail("bootstrap_interface", absl::StrCat(name, " has no address")));
    } else {
      std::string detail = absl::StrCat(name, " up, ", absl::StrJoin(found->addresses, " "),
                                        ", MTU ", found->mtu_bytes);
      if (found->speed_mbps > 0) absl::StrAppend(&detail, ", ", found->speed_mbps, " Mb/s");
      results.push_back(Ok("bootstrap_interface", std::move(detail)));
    }
  }
  if (!config.bootstrap_address.empty()) {
    std::string owner;
    for (const common::InterfaceInfo& info : *interfaces) {
      if (std::find(info.addresses.begin(), info.addresses.end(), config.bootstrap_address) !=
          info.addresses.end()) {
        owner = info.name;
      }
    }
    if (owner.empty()) {
      results.push_back(Fail("bootstrap_address", absl::StrCat(config.bootstrap_address,
                                                               " is not an address of this host")));
    } else {
      results.push_back(
          Ok("bootstrap_address", absl::StrCat(config.bootstrap_address, " on ", owner)));
    }
  }
  return results;
}

// One line per HCA port, so that eight HCAs give eight verdicts.
std::vector<CheckResult> CheckHcaPorts(const AgentCoreConfig& config, const HostProbe& probe) {
  std::vector<CheckResult> results;
  if (config.ib_hcas.empty()) {
    results.push_back(Ok("ib_hca", "not set: NCCL picks the HCAs itself"));
    return results;
  }
  for (const HcaPort& hca : config.ib_hcas) {
    auto ports = probe.Hcas({hca}, config.sysfs_infiniband);
    if (!ports.ok()) {
      results.push_back(
          Fail(absl::StrCat("ib_hca ", HcaName(hca)),
               std::string(absl::StripPrefix(ports.status().message(), "--ib-hca: "))));
      continue;
    }
    for (const ebnccl::v1::HcaInfo& port : *ports) {
      const bool roce = port.link_layer() == "Ethernet";
      std::string detail =
          absl::StrCat(port.state().empty() ? "unknown state" : port.state(), ", ",
                       port.link_layer().empty() ? "unknown link layer" : port.link_layer(),
                       roce ? " (RoCE)" : "", ", ", port.rate_gbps(), " Gb/s");
      if (roce) {
        absl::StrAppend(&detail, config.ib_gid_index >= 0
                                     ? absl::StrCat(", GID index ", config.ib_gid_index)
                                     : std::string(", GID index: NCCL's choice"));
      }
      const std::string name = absl::StrCat("ib_hca ", port.name(), ":", port.port());
      if (port.state() == "ACTIVE") {
        results.push_back(Ok(name, std::move(detail)));
      } else {
        results.push_back(Fail(name, absl::StrCat(detail, ": not ACTIVE, NCCL cannot use it")));
      }
    }
  }
  return results;
}

// "8 GPUs [0,...,7] NVIDIA H200, 140 GiB each", with why memory is
// unknown when NVML could not say.
std::string DescribeGpus(const std::vector<ebnccl::v1::GpuInfo>& gpus,
                         const std::string& nvml_note) {
  std::vector<int> indices;
  std::vector<std::string> names;
  std::vector<std::string> memory;
  bool memory_unknown = false;
  for (const ebnccl::v1::GpuInfo& gpu : gpus) {
    indices.push_back(gpu.index());
    if (std::find(names.begin(), names.end(), gpu.name()) == names.end())
      names.push_back(gpu.name());
    memory.push_back(common::FormatGpuMemory(gpu.memory_bytes()));
    memory_unknown |= gpu.memory_bytes() <= 0;
  }
  std::string text = absl::StrCat(gpus.size(), gpus.size() == 1 ? " GPU [" : " GPUs [",
                                  absl::StrJoin(indices, ","), "] ", absl::StrJoin(names, ", "));
  if (!memory_unknown) {
    const bool same = std::all_of(memory.begin(), memory.end(),
                                  [&](const std::string& m) { return m == memory.front(); });
    if (same) {
      absl::StrAppend(&text, ", ", memory.front(), gpus.size() == 1 ? "" : " each");
    } else {
      absl::StrAppend(&text, ", ", absl::StrJoin(memory, " / "));
    }
  }
  if (!nvml_note.empty()) {
    absl::StrAppend(&text, " (", nvml_note, ")");
  } else if (memory_unknown) {
    absl::StrAppend(&text, " (GPU memory unknown)");
  }
  return text;
}

// The GPU line, and the GPUs this agent owns (for the NCCL line).
CheckResult CheckGpus(const AgentCoreConfig& config, const HostProbe& probe,
                      std::vector<ebnccl::v1::GpuInfo>* owned) {
  const DiscoveredGpus found = probe.Gpus();
  const std::vector<ebnccl::v1::GpuInfo>& all = found.gpus;
  if (absl::Status exist = CheckGpuIndices(config.gpu_indices, all.size()); !exist.ok()) {
    return Fail("gpus", std::string(exist.message()));
  }
  *owned = SelectGpus(all, config.gpu_indices);
  if (owned->empty()) {
    if (config.transport == "nccl") return Fail("gpus", "no GPUs, but agent.transport is nccl");
    return Ok("gpus", "no GPUs: CPU workers over Gloo only");
  }
  return Ok("gpus", DescribeGpus(*owned, found.nvml_note));
}

CheckResult CheckNccl(const AgentCoreConfig& config, size_t gpu_count) {
  const std::string& version = config.nccl_version;
  const std::string found = version.empty() ? "" : absl::StrCat("NCCL ", version, ": ");
  if (config.transport == "gloo") return Ok("nccl", found + "not offered (agent.transport = gloo)");
  if (gpu_count == 0) return Ok("nccl", found + "not offered (no GPUs)");
  if (version.empty()) {
    return Fail("nccl",
                absl::StrCat("no usable NCCL library for the workers (",
                             config.nccl_problem.empty() ? "unknown reason" : config.nccl_problem,
                             "): the GPUs cannot be tested"));
  }
  if (static_cast<size_t>(config.worker_slots) > gpu_count) {
    return Fail("nccl", absl::StrCat(found, config.worker_slots, " worker slots on ", gpu_count,
                                     " GPUs: NCCL allows one rank per GPU, so it is not offered"));
  }
  return Ok("nccl", absl::StrCat("NCCL ", version, ", ", config.worker_slots, " slots on ",
                                 gpu_count, " GPUs"));
}

CheckResult CheckWorkerEnv(const AgentCoreConfig& config) {
  std::vector<std::string> names;
  for (const std::string& entry : config.worker_env) {
    const size_t equals = entry.find('=');
    if (equals == std::string::npos || equals == 0) {
      return Fail("worker_env", absl::StrCat("'", entry, "' is not KEY=VALUE"));
    }
    if (absl::Status status =
            CheckWorkerEnvVariable(entry.substr(0, equals), entry.substr(equals + 1));
        !status.ok()) {
      return Fail("worker_env", std::string(status.message()));
    }
    names.push_back(entry.substr(0, equals));
  }
  if (names.empty()) return Ok("worker_env", "none");
  return Ok("worker_env", absl::StrJoin(names, " "));
}

}  // namespace

std::vector<CheckResult> CheckAgentConfig(const AgentCoreConfig& config, const HostProbe& probe,
                                          const CheckOptions& options) {
  std::vector<CheckResult> results;
  results.push_back(config.node_name.empty() ? Fail("node_name", "empty")
                                             : Ok("node_name", config.node_name));
  results.push_back(CheckCoordinator(config, probe, options));
  for (CheckResult& result : CheckNetwork(config, probe)) results.push_back(std::move(result));
  for (CheckResult& result : CheckHcaPorts(config, probe)) results.push_back(std::move(result));
  std::vector<ebnccl::v1::GpuInfo> owned;
  results.push_back(CheckGpus(config, probe, &owned));
  results.push_back(CheckNccl(config, owned.size()));
  if (config.worker_binary.empty()) {
    results.push_back(Fail("worker_binary", "not set"));
  } else if (absl::Status status = probe.CheckExecutable(config.worker_binary); !status.ok()) {
    results.push_back(Fail("worker_binary", std::string(status.message())));
  } else {
    results.push_back(Ok("worker_binary", config.worker_binary));
  }
  if (config.run_dir.empty()) {
    results.push_back(Fail("run_dir", "not set"));
  } else if (auto dir = probe.CheckWritableDir(config.run_dir); !dir.ok()) {
    results.push_back(Fail("run_dir", std::string(dir.status().message())));
  } else {
    results.push_back(Ok("run_dir", absl::StrCat(config.run_dir, ": ", *dir)));
  }
  results.push_back(CheckWorkerEnv(config));
  return results;
}

bool AllChecksPassed(const std::vector<CheckResult>& results) {
  return std::all_of(results.begin(), results.end(),
                     [](const CheckResult& result) { return result.ok; });
}

std::string FormatCheckResult(const CheckResult& result) {
  return absl::StrCat(result.ok ? "ok    " : "FAIL  ", result.name, ": ", result.detail);
}

}  // namespace eb::agent
