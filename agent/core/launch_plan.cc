#include "agent/core/launch_plan.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "agent/core/nccl_ras.h"
#include "agent/core/worker_spec.h"

namespace eb::agent {
namespace v1 = ebnccl::v1;

namespace {

// Refuses every rank on a GPU that an earlier rank of the test uses.
void RefuseSharedGpus(std::vector<PlannedWorker>& workers) {
  std::map<int, int> device_owner;
  for (PlannedWorker& worker : workers) {
    const int device = worker.assignment.device_index();
    if (device < 0) continue;
    auto [it, inserted] = device_owner.emplace(device, worker.assignment.rank());
    if (!inserted) {
      worker.refusal = absl::StrCat("GPU ", device, " is already used by rank ", it->second,
                                    " of this test; refusing to start two ranks on one GPU");
    }
  }
}

bool TurnsRasOff(const common::ProcessSpec& spec) {
  return std::find(spec.env.begin(), spec.env.end(), "NCCL_RAS_ENABLE=0") != spec.env.end();
}

}  // namespace

bool LaunchPlan::refused() const {
  return std::any_of(workers.begin(), workers.end(),
                     [](const PlannedWorker& worker) { return !worker.refusal.empty(); });
}

LaunchPlan PlanLaunch(const AgentCoreConfig& config, const v1::LaunchTest& launch,
                      const LaunchSite& site, const std::function<std::string()>& make_token) {
  LaunchPlan plan;
  plan.ras_port = site.ras_port;
  for (const v1::RankAssignment& assignment : launch.ranks()) {
    PlannedWorker& worker = plan.workers.emplace_back();
    worker.assignment = assignment;
    worker.token = make_token();
    worker.log_path = WorkerLogPath(config.run_dir, launch.test_id(), assignment.rank());
  }
  RefuseSharedGpus(plan.workers);
  // Nothing starts for a refused launch: no spec is needed.
  if (plan.refused()) return plan;
  for (PlannedWorker& worker : plan.workers) {
    WorkerLaunch worker_launch{&launch,           &worker.assignment, worker.token,  site.agent_pid,
                               site.agent_target, worker.log_path,    site.agent_env};
    if (plan.ras_port != 0) worker_launch.nccl_ras_address = NcclRasAddress(plan.ras_port);
    worker.spec = BuildWorkerSpec(config, worker_launch);
    if (TurnsRasOff(worker.spec)) plan.ras_port = 0;
  }
  return plan;
}

v1::RegisterWorkerReply RegisterReplyFor(const AgentCoreConfig& config,
                                         const v1::LaunchTest& launch,
                                         const v1::RankAssignment& assignment) {
  v1::RegisterWorkerReply reply;
  *reply.mutable_assignment() = assignment;
  *reply.mutable_spec() = launch.spec();
  reply.set_heartbeat_period_ms(absl::ToInt64Milliseconds(config.worker_heartbeat_period));
  *reply.mutable_sizes_bytes() = launch.sizes_bytes();
  reply.set_init_timeout_ms(launch.init_timeout_ms());
  reply.set_op_timeout_ms(launch.op_timeout_ms());
  reply.set_bootstrap_interface(config.bootstrap_interface);
  reply.set_bootstrap_address(config.bootstrap_address);
  return reply;
}

}  // namespace eb::agent
