#pragma once

// What a LaunchTest becomes on this node before anything is created or
// started: each rank's worker with its token, log file and exact process
// spec, the ranks that may not start, and the NCCL RAS port its workers are
// told; and what a worker learns when it registers. Pure (the tokens come
// from the caller's source). The launch has passed CheckLaunch
// (launch_check.h).

#include <functional>
#include <string>
#include <vector>

#include "agent/core/agent_core_config.h"
#include "common/process/process_launcher.h"
#include "ebnccl/v1/agent.pb.h"
#include "ebnccl/v1/worker.pb.h"

namespace eb::agent {

// Where a launch's workers run: what the plan takes besides the launch.
struct LaunchSite {
  // The agent's pid: a worker exits if its parent is not this process.
  int agent_pid = 0;
  // gRPC target of the WorkerControl endpoint the workers dial.
  std::string agent_target;
  // The agent's environment (a few variables are passed on).
  std::vector<std::string> agent_env;
  // NCCL_RAS_ADDR's port for the test's NCCL workers (PickNcclRasPort), or
  // 0 to leave NCCL_RAS_ADDR as the environment has it.
  int ras_port = 0;
};

// One rank's worker as planned.
struct PlannedWorker {
  ebnccl::v1::RankAssignment assignment;
  // Its secret startup token (common/spec/worker_token.h).
  std::string token;
  std::string log_path;
  // Empty when the plan is refused (nothing starts).
  common::ProcessSpec spec;
  // Why this rank may not start, "" when it may: it would share a GPU with
  // an earlier rank of the test.
  std::string refusal;
};

struct LaunchPlan {
  // In the order of the launch's ranks.
  std::vector<PlannedWorker> workers;
  // The RAS port the test keeps: the site's, or 0 once a worker's
  // environment turns RAS off (NCCL_RAS_ENABLE=0: nothing would answer).
  int ras_port = 0;

  // True when some rank may not start: then none may.
  bool refused() const;
};

// Plans `launch`'s workers, one `make_token()` each, in rank order. One
// rank per GPU per communicator (NCCL_FACTS "Duplicate GPU detected"): a
// rank on a GPU an earlier rank uses is refused. The specs are
// BuildWorkerSpec's, in rank order; the RAS address goes into each one
// until a spec turns RAS off.
LaunchPlan PlanLaunch(const AgentCoreConfig& config, const ebnccl::v1::LaunchTest& launch,
                      const LaunchSite& site, const std::function<std::string()>& make_token);

// Everything a registering worker needs beyond the identity on its command
// line: its assignment (its GPU and that GPU's bus id), the test's spec,
// sweep and deadlines, its heartbeat period and the bootstrap interface and
// address.
ebnccl::v1::RegisterWorkerReply RegisterReplyFor(const AgentCoreConfig& config,
                                                 const ebnccl::v1::LaunchTest& launch,
                                                 const ebnccl::v1::RankAssignment& assignment);

}  // namespace eb::agent
