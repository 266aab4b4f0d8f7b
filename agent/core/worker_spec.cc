#include "agent/core/worker_spec.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "agent/core/env_policy.h"
#include "agent/core/fabric_config.h"
#include "common/spec/worker_token.h"

namespace eb::agent {
namespace {

constexpr char kNcclNet[] = "NCCL_NET";

}  // namespace

std::string NcclDebugAtLeastWarn(const std::vector<std::string>& env) {
  for (const std::string& entry : env) {
    if (!absl::StartsWith(entry, "NCCL_DEBUG=")) continue;
    const std::string level =
        absl::AsciiStrToUpper(entry.substr(std::string("NCCL_DEBUG=").size()));
    // NCCL's levels: NONE < VERSION < WARN < INFO < ABORT < TRACE; an
    // unknown word would be NCCL's to judge, but it logs nothing then.
    if (level == "INFO" || level == "ABORT" || level == "TRACE" || level == "WARN") {
      return entry.substr(std::string("NCCL_DEBUG=").size());
    }
    return "WARN";  // set quieter: its warnings at least
  }
  // Unset: INFO, whose init lines say what NCCL used (issue 29, item 4).
  return "INFO";
}

bool NcclVersionAtLeast(absl::string_view version, int major, int minor, int patch) {
  int parts[3] = {0, 0, 0};
  int index = 0;
  for (absl::string_view part : absl::StrSplit(version.substr(0, version.find('+')), '.')) {
    if (index >= 3 || !absl::SimpleAtoi(part, &parts[index])) return false;
    ++index;
  }
  if (index < 2) return false;
  return std::make_tuple(parts[0], parts[1], parts[2]) >= std::make_tuple(major, minor, patch);
}

bool IsPassedThrough(const std::string& env_entry) {
  // The sanitizers' runtime options too: an instrumented build's workers
  // must read the same suppressions and halt_on_error as the agent (other
  // builds ignore them).
  static const char* const kExact[] = {
      "PATH=", "LD_LIBRARY_PATH=", "HOME=",         "TMPDIR=",        "LANG=",
      "TZ=",   "ASAN_OPTIONS=",    "LSAN_OPTIONS=", "UBSAN_OPTIONS=", "TSAN_OPTIONS="};
  for (const char* prefix : kExact) {
    if (absl::StartsWith(env_entry, prefix)) return true;
  }
  return absl::StartsWith(env_entry, "NCCL_") || absl::StartsWith(env_entry, "CUDA_") ||
         absl::StartsWith(env_entry, "NVIDIA_");
}

std::string WorkerLogDir(const std::string& run_dir, const std::string& test_id) {
  return absl::StrCat(run_dir, "/logs/", test_id);
}

std::string WorkerLogPath(const std::string& run_dir, const std::string& test_id, int rank) {
  return absl::StrCat(WorkerLogDir(run_dir, test_id), "/rank-", rank, ".log");
}

std::vector<std::string> BuildWorkerEnv(const AgentCoreConfig& config,
                                        const std::vector<std::string>& agent_env,
                                        const std::map<std::string, std::string>& test_env) {
  // Later entries win.
  std::map<std::string, std::string> env;
  auto add = [&env](const std::string& entry) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) return;
    std::string name = entry.substr(0, eq);
    if (IsAgentOwnedVariable(name)) return;
    env[std::move(name)] = entry.substr(eq + 1);
  };
  for (const std::string& entry : agent_env) {
    if (IsPassedThrough(entry)) add(entry);
  }
  // The node's fabric configuration: the only source of these two.
  if (!config.bootstrap_interface.empty()) {
    env["NCCL_SOCKET_IFNAME"] = "=" + config.bootstrap_interface;
  }
  if (!config.ib_hcas.empty()) env["NCCL_IB_HCA"] = NcclIbHcaValue(config.ib_hcas);
  if (config.ib_gid_index >= 0) env["NCCL_IB_GID_INDEX"] = absl::StrCat(config.ib_gid_index);
  for (const std::string& entry : config.worker_env) add(entry);
  // The test's own NCCL knobs (allow-listed by the coordinator).
  for (const auto& [key, value] : test_env) {
    if (!IsAgentOwnedVariable(key)) env[key] = value;
  }
  // HCAs configured: NCCL must use them or fail, never fall back to TCP
  // sockets without a word (NCCL_NET=IB; NCCL's IB transport covers RoCE
  // too). An NCCL_NET from the agent's environment or worker.env wins (an
  // external plugin such as IBext), and a test that turns IB off
  // (NCCL_IB_DISABLE=1, e.g. to compare with sockets) gets NCCL's choice.
  if (!config.ib_hcas.empty() && !env.contains(kNcclNet)) {
    const auto disabled = env.find("NCCL_IB_DISABLE");
    if (disabled == env.end() || disabled->second != "1") env[kNcclNet] = "IB";
  }
  // --cuda-device i must be the agent's GPU i, the i-th in PCI order; CUDA's
  // default order is "fastest first".
  env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID";
  std::vector<std::string> entries;
  entries.reserve(env.size());
  for (const auto& [key, value] : env) entries.push_back(absl::StrCat(key, "=", value));
  return entries;
}

common::ProcessSpec BuildWorkerSpec(const AgentCoreConfig& config, const WorkerLaunch& worker) {
  const ebnccl::v1::LaunchTest& launch = *worker.launch;
  const ebnccl::v1::RankAssignment& rank = *worker.assignment;
  common::ProcessSpec spec;
  spec.executable = config.worker_binary;
  // Only who the worker is; everything else (GPU, deadlines, sweep,
  // bootstrap settings) comes once, in its registration reply.
  spec.argv = {config.worker_binary, absl::StrCat("--agent=", worker.agent_target),
               absl::StrCat("--agent-pid=", worker.agent_pid),
               absl::StrCat("--test-id=", launch.test_id()), absl::StrCat("--rank=", rank.rank())};
  spec.env = BuildWorkerEnv(config, worker.agent_env,
                            std::map<std::string, std::string>(launch.spec().nccl_env().begin(),
                                                               launch.spec().nccl_env().end()));
  if (launch.spec().transport() == ebnccl::v1::TRANSPORT_NCCL) {
    // NCCL's own diagnosis (issue 12, part 5): at least its warnings are
    // always in the rank's log, for the report of a failure.
    const std::string floor = absl::StrCat("NCCL_DEBUG=", NcclDebugAtLeastWarn(spec.env));
    std::erase_if(spec.env,
                  [](const std::string& entry) { return absl::StartsWith(entry, "NCCL_DEBUG="); });
    spec.env.insert(std::upper_bound(spec.env.begin(), spec.env.end(), floor), floor);
    auto set_unless_given = [&spec](absl::string_view name, absl::string_view value) {
      const std::string prefix = absl::StrCat(name, "=");
      for (const std::string& entry : spec.env) {
        if (absl::StartsWith(entry, prefix)) return;
      }
      const std::string entry = absl::StrCat(prefix, value);
      spec.env.insert(std::upper_bound(spec.env.begin(), spec.env.end(), entry), entry);
    };
    // What NCCL really used (issue 29, item 4): its init, environment and
    // network lines, unless the operator or the test chose the subsystems.
    if (floor == "NCCL_DEBUG=INFO") set_unless_given("NCCL_DEBUG_SUBSYS", "INIT,ENV,NET");
    // NCCL >= 2.29.7 can fail an IB connection over to another port: a dead
    // port would then be a slower pass, not a failure. Pinned off (its
    // default there, pinned against an inherited or future default) unless
    // set; the rank's ENV line records the value NCCL read.
    if (NcclVersionAtLeast(config.nccl_version, 2, 29, 7)) {
      set_unless_given("NCCL_IB_RESILIENCY_PORT_FAILOVER", "0");
    }
    if (!worker.nccl_ras_address.empty()) {
      // The test's own RAS port: concurrent tests on this node must not
      // share NCCL's default one (the agent queries it on a failure).
      const std::string ras = absl::StrCat("NCCL_RAS_ADDR=", worker.nccl_ras_address);
      std::erase_if(spec.env, [](const std::string& entry) {
        return absl::StartsWith(entry, "NCCL_RAS_ADDR=");
      });
      spec.env.insert(std::upper_bound(spec.env.begin(), spec.env.end(), ras), ras);
    }
  }
  // The token is a secret: in the environment, which only the worker's
  // user and root can read, never on the command line, which `ps` shows to
  // everyone. BuildWorkerEnv never takes it from elsewhere (env_policy.h).
  const std::string token = absl::StrCat(eb::spec::kWorkerTokenVariable, "=", worker.token);
  spec.env.insert(std::upper_bound(spec.env.begin(), spec.env.end(), token), token);
  spec.log_path = worker.log_path;
  return spec;
}

common::ProcessSpec BuildNcclProbeSpec(const AgentCoreConfig& config,
                                       const std::vector<std::string>& agent_env) {
  common::ProcessSpec spec;
  spec.executable = config.worker_binary;
  spec.argv = {config.worker_binary, "--print-nccl-version"};
  spec.env = BuildWorkerEnv(config, agent_env);
  return spec;
}

}  // namespace eb::agent
