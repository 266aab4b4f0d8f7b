#include "agent/core/env_policy.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/spec/worker_token.h"

namespace eb::agent {
namespace {

constexpr absl::string_view kIbHca = "NCCL_IB_HCA";
constexpr absl::string_view kSocketIfname = "NCCL_SOCKET_IFNAME";
constexpr absl::string_view kVisibleDevices = "CUDA_VISIBLE_DEVICES";
constexpr absl::string_view kDeviceOrder = "CUDA_DEVICE_ORDER";

// "--ib-hca mlx5_1,mlx5_2" for a plain or '=' list; a '^' list names what
// not to use, which the flag cannot say.
std::string Suggestion(absl::string_view flag, absl::string_view value) {
  absl::string_view list = value;
  if (absl::StartsWith(list, "^")) return absl::StrCat("list what to use with ", flag);
  absl::ConsumePrefix(&list, "=");
  if (list.empty()) return absl::StrCat("use ", flag);
  return absl::StrCat("use ", flag, " ", list);
}

// Why `name` is the agent's, and what to use instead; "" for other names.
std::string Reason(absl::string_view name, absl::string_view value) {
  if (name == kIbHca) {
    return absl::StrCat(
        "the workers' HCAs come from --ib-hca (nccl.ib_hca), which checks each against "
        "/sys/class/infiniband, reports it in the inventory and writes NCCL's exact-match '=' "
        "form (a plain 'mlx5_1' also matches mlx5_10..mlx5_19); ",
        Suggestion("--ib-hca", value));
  }
  if (name == kSocketIfname) {
    return absl::StrCat(
        "the workers' interface comes from --bootstrap-interface "
        "(network.bootstrap_interface), which checks that it is up and writes NCCL's "
        "exact-match '=' form (a plain 'eth1' also matches eth10..); ",
        Suggestion("--bootstrap-interface", value));
  }
  if (name == kVisibleDevices) {
    return "the agent's GPU index i is the i-th GPU of the host in PCI order, which a "
           "narrowed CUDA_VISIBLE_DEVICES would remap, and it disables CUDA IPC between the "
           "local ranks (NVIDIA/nccl#129); pick the agent's GPUs with --gpus (agent.gpus)";
  }
  if (name == spec::kWorkerTokenVariable) {
    return "the agent gives every worker its own random startup token there";
  }
  if (name == kDeviceOrder) {
    return "the agent sets CUDA_DEVICE_ORDER=PCI_BUS_ID for every worker, so that CUDA's "
           "device indices are the agent's GPU indices";
  }
  return "";
}

// Splits "KEY=VALUE"; false for an entry without '='.
bool Split(const std::string& entry, absl::string_view* name, absl::string_view* value) {
  const size_t eq = entry.find('=');
  if (eq == std::string::npos) return false;
  *name = absl::string_view(entry).substr(0, eq);
  *value = absl::string_view(entry).substr(eq + 1);
  return true;
}

}  // namespace

bool IsAgentOwnedVariable(absl::string_view name) {
  return name == kIbHca || name == kSocketIfname || name == kVisibleDevices ||
         name == kDeviceOrder || name == spec::kWorkerTokenVariable;
}

absl::Status CheckWorkerEnvVariable(absl::string_view name, absl::string_view value) {
  if (!IsAgentOwnedVariable(name)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(name, " cannot be set in the workers' environment: ", Reason(name, value)));
}

absl::Status CheckAgentEnvironment(const std::vector<std::string>& env) {
  for (const std::string& entry : env) {
    absl::string_view name, value;
    if (!Split(entry, &name, &value) || (name != kIbHca && name != kSocketIfname)) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        "eb-agent's environment sets ", entry,
        ", which the workers would inherit: ", Reason(name, value), " (and unset ", name, ")"));
  }
  return absl::OkStatus();
}

std::vector<std::string> AgentEnvironmentWarnings(const std::vector<std::string>& env) {
  std::vector<std::string> warnings;
  for (const std::string& entry : env) {
    absl::string_view name, value;
    if (!Split(entry, &name, &value)) continue;
    if (name == kVisibleDevices || (name == kDeviceOrder && value != "PCI_BUS_ID")) {
      warnings.push_back(
          absl::StrCat("eb-agent's environment sets ", entry,
                       "; it is not passed on to the workers: ", Reason(name, value)));
    }
  }
  return warnings;
}

}  // namespace eb::agent
