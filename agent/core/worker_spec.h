#pragma once

// How the agent starts one worker: its exact argv and environment (STYLE.md
// rules 13, 15, 19). Pure.

#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "agent/core/agent_core_config.h"
#include "common/process/process_launcher.h"
#include "ebnccl/v1/agent.pb.h"

namespace eb::agent {

struct WorkerLaunch {
  // The test's launch command and the rank to start.
  const ebnccl::v1::LaunchTest* launch = nullptr;
  const ebnccl::v1::RankAssignment* assignment = nullptr;
  // Random token the worker presents when it registers (passed in its
  // environment, common/spec/worker_token.h).
  std::string token;
  // The agent's pid: the worker exits if its parent is not this process.
  int agent_pid = 0;
  // gRPC target of the agent's WorkerControl service ("unix:/...").
  std::string agent_target;
  // Log file of this rank.
  std::string log_path;
  // The agent's own environment, from which a few variables are passed on.
  std::vector<std::string> agent_env;
  // NCCL_RAS_ADDR for an NCCL test's worker (nccl_ras.h), or "" to leave it
  // as the environment has it.
  std::string nccl_ras_address;
};

// Variables of the agent's environment handed to workers as they are: the
// search paths, and the NCCL/CUDA settings an operator may put on the
// service (STYLE.md rule 21's exception).
bool IsPassedThrough(const std::string& env_entry);

// The environment of a process started from eb-worker (a worker, or the
// NCCL version probe), in increasing precedence: the passed-through part of
// the agent's environment, the node's fabric settings (NCCL_SOCKET_IFNAME
// and NCCL_IB_HCA in '=' form, NCCL_IB_GID_INDEX), config.worker_env, then
// `test_env` (the test's allow-listed nccl_env); last NCCL_NET=IB where
// HCAs are configured and nothing above set NCCL_NET or NCCL_IB_DISABLE=1
// (so that NCCL fails rather than silently using TCP sockets), and
// CUDA_DEVICE_ORDER=PCI_BUS_ID. The variables env_policy.h gives to the agent are never taken
// from the agent's environment or config.worker_env (the agent refuses the
// latter at start; this is the backstop). Sorted by name.
std::vector<std::string> BuildWorkerEnv(const AgentCoreConfig& config,
                                        const std::vector<std::string>& agent_env,
                                        const std::map<std::string, std::string>& test_env = {});

// The worker's argv and environment. The argv carries only its identity
// (--agent, --agent-pid, --test-id, --rank); the rest (its GPU and bus id,
// deadlines, the sweep, the bootstrap interface and address) it gets once,
// in the registration reply. The environment is BuildWorkerEnv with the
// test's nccl_env, plus the worker's token (common/spec/worker_token.h). For NCCL the
// GPU is the assignment's device_index, selected with cudaSetDevice;
// CUDA_VISIBLE_DEVICES is never set (it would remap the indices and disable
// CUDA IPC between local ranks, NVIDIA/nccl#129). An NCCL test's workers
// always log NCCL's warnings: NCCL_DEBUG is INFO when unset (with
// NCCL_DEBUG_SUBSYS=INIT,ENV,NET unless set: what NCCL used, issue 29 item
// 4) and raised to WARN when quieter (NcclDebugAtLeastWarn); with NCCL >=
// 2.29.7 (config.nccl_version) NCCL_IB_RESILIENCY_PORT_FAILOVER=0 unless
// set (a dead port fails the test); and they get the test's own RAS port
// (NCCL_RAS_ADDR = worker.nccl_ras_address, over any other value) when the
// agent gave one.
common::ProcessSpec BuildWorkerSpec(const AgentCoreConfig& config, const WorkerLaunch& worker);

// `eb-worker --print-nccl-version` with the workers' environment (no test's
// settings), so that it loads the NCCL library a worker would load. No log
// path: the caller decides where the output goes.
common::ProcessSpec BuildNcclProbeSpec(const AgentCoreConfig& config,
                                       const std::vector<std::string>& agent_env);

// The NCCL_DEBUG level a worker runs with, given its environment: the one
// set when it is WARN or more verbose (INFO, ABORT, TRACE), "WARN" when set
// quieter, "INFO" when unset.
std::string NcclDebugAtLeastWarn(const std::vector<std::string>& env);

// `version` ("2.29.7", "2.28.3+cuda13.0") is at least major.minor.patch;
// false when it does not read as a version.
bool NcclVersionAtLeast(absl::string_view version, int major, int minor, int patch);

// Directory of a test's logs: <run_dir>/logs/<test_id>.
std::string WorkerLogDir(const std::string& run_dir, const std::string& test_id);

// Log file of a rank: <run_dir>/logs/<test_id>/rank-<rank>.log.
std::string WorkerLogPath(const std::string& run_dir, const std::string& test_id, int rank);

}  // namespace eb::agent
