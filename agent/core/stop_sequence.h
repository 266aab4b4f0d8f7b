#pragma once

// The graduated stop of a test's workers (STYLE.md rule 14; docs/DESIGN.md,
// "Processes" and "Evidence from the node"): the deadlines end, a worker
// that had already gone silent is reported as hung, NCCL's RAS is asked
// where it can still answer, then SIGTERM and SIGCONT go to every live
// worker's process group, and SIGKILL to those still alive after the grace
// period. One per WorkerSupervisor, on its executor; it reads and changes
// the supervisor's tests, which outlive it.

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "agent/core/agent_core_config.h"
#include "agent/core/nccl_ras.h"
#include "agent/core/supervision_state.h"
#include "agent/core/worker_reports.h"
#include "common/exec/executor.h"
#include "common/process/process_launcher.h"
#include "common/time/clock.h"

namespace eb::agent {

// How the stop reaches NCCL's RAS service (SupervisorEnvironment::query_ras
// and ras_limits): `query(port, done)` must not block, and calls `done` on
// any thread within limits.deadline. An unset query: RAS is never asked.
struct RasQuery {
  std::function<void(int port, std::function<void(NcclRasExchange)> done)> query;
  NcclRasLimits limits;
};

class StopSequence {
 public:
  // `on_ras_done` is told, on the executor, the id of a test whose RAS
  // query has ended and whose workers were then signalled: the query held
  // up the test's end, which may be due now.
  StopSequence(const AgentCoreConfig& config, RasQuery ras, common::Clock& clock,
               common::Executor& executor, common::ProcessLauncher& launcher,
               SupervisedTests& tests, WorkerReports& reports,
               std::function<void(const std::string& test_id)> on_ras_done);

  // Stops `test` for `reason`, once (later calls do nothing). `ask_ras`:
  // NCCL's RAS is queried first where ShouldQueryRas holds; the workers are
  // signalled when it answers, or a second past its deadline.
  void Begin(SupervisedTest& test, const std::string& reason, bool ask_ras);
  // RAS is worth asking: an NCCL test with a RAS port, and a registered
  // worker that is alive and has not finished.
  bool ShouldQueryRas(const SupervisedTest& test) const;
  // SIGKILL to `worker`'s process group, if it is alive.
  void Kill(SupervisedWorker& worker);

 private:
  // A worker that had already stopped heartbeating is the likely cause of
  // the stop (a hang, SIGSTOP): said before the stop hides it.
  void ReportSilentWorkers(SupervisedTest& test);
  void QueryRas(SupervisedTest& test);
  // The query ended (`exchange`) or its backstop fired (nullopt).
  void OnRasDone(const std::string& test_id, std::optional<NcclRasExchange> exchange);
  // SIGKILL for the hung, SIGTERM and SIGCONT for the rest, then the grace
  // timer.
  void SignalWorkers(SupervisedTest& test);
  void OnGraceOver(const std::string& test_id);

  const AgentCoreConfig& config_;
  const RasQuery ras_;
  common::Clock& clock_;
  common::Executor& executor_;
  common::ProcessLauncher& launcher_;
  SupervisedTests& tests_;
  WorkerReports& reports_;
  const std::function<void(const std::string& test_id)> on_ras_done_;
  // Replies of RAS queries arrive on other threads and are posted onto the
  // executor; they find this gone once the supervisor is destroyed.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

// True when `exit`, seen while the worker's test is stopping, is not the
// stop's doing: a SIGKILL this agent never sent (the OOM killer, an
// operator), or a death by signal before the agent signalled anything. The
// stop that such an exit races with was usually caused by it (a peer saw
// the connection reset first), so it must still be reported.
bool DiedOfItsOwnDuringStop(const SupervisedWorker& worker, const common::ExitInfo& exit);

}  // namespace eb::agent
