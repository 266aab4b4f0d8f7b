#pragma once

// Spawns and supervises one worker per rank of each test on this node
// (STYLE.md rules 13-17) and reports what becomes of them: the owner of the
// node's tests (supervision_state.h), on the agent's executor. Its pieces
// work on those tests:
//   launch_check.h, launch_plan.h  the LaunchTest checked, then planned into
//                                  worker specs (pure);
//   worker_watchdog.h     the registration deadline and heartbeat watchdog;
//   stop_sequence.h       the graduated stop (RAS, SIGTERM+SIGCONT, grace,
//                         SIGKILL to the process group);
//   evidence_collector.h  what goes with WorkersStopped;
//   worker_reports.h      every message to the coordinator.
// The supervisor itself spawns, classifies exits, answers the workers'
// calls, and ends a test once every one of its workers has been reaped.
//
// Every method runs on the agent's executor. Exit callbacks from the
// launcher's reaper thread are posted onto it.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "agent/core/agent_core_config.h"
#include "agent/core/evidence_collector.h"
#include "agent/core/launch_plan.h"
#include "agent/core/nccl_ras.h"
#include "agent/core/port_counters.h"
#include "agent/core/stop_sequence.h"
#include "agent/core/supervision_state.h"
#include "agent/core/worker_reports.h"
#include "agent/core/worker_watchdog.h"
#include "common/exec/executor.h"
#include "common/process/process_launcher.h"
#include "common/time/clock.h"
#include "ebnccl/v1/agent.pb.h"
#include "ebnccl/v1/worker.pb.h"

namespace eb::agent {

struct SupervisorEnvironment {
  int agent_pid = 0;
  // gRPC target of the WorkerControl service the workers dial, when
  // open_worker_endpoint is unset.
  std::string agent_target;
  // The agent's environment (some of it is passed to workers).
  std::vector<std::string> agent_env;
  // Makes a fresh secret token per worker.
  std::function<std::string()> make_token;
  // Creates a directory and its parents (OK when it exists); the message of
  // an error is the reason only, the caller names the directory. Called
  // with a test's log directory before its workers are spawned. The agent
  // passes CreateDirectories (agent/host/directories.h); unset, nothing is
  // created (a fake launcher that opens no log file needs none).
  std::function<absl::Status(const std::string& path)> create_directories;
  // Reads every configured HCA port (link state and counters), before a
  // test starts and after its workers are gone; the deltas go with
  // WorkersStopped (issue 12, part 3). Unset: no port is read.
  std::function<std::vector<PortSnapshot>()> read_ports;
  // Reads the host's TCP counters at the same two instants (agent/host/
  // proc_net.h). Unset: they are not read.
  std::function<TcpSnapshot()> read_tcp;
  // Reads at most `max_bytes` of a rank's log, from its start or from its
  // end; "" when it cannot be read. Used for the ranks' NCCL warnings and
  // the NICs their NCCL used (nccl_log.h). Unset: neither is collected.
  std::function<std::string(const std::string& path, bool from_start, size_t max_bytes)> read_log;
  // Queries NCCL's RAS service on 127.0.0.1:`port` without blocking the
  // caller; `done` runs on any thread, within ras_limits.deadline. Used when
  // an NCCL test with a RAS port (AgentCoreConfig::nccl_ras_port_base) is
  // stopped while registered workers are alive, before they are signalled
  // (issue 12, part 5). Unset: RAS is never queried.
  std::function<void(int port, std::function<void(NcclRasExchange)> done)> query_ras;
  NcclRasLimits ras_limits;
  // Opens the WorkerControl endpoint for a launch and returns its target
  // (the agent serves workers only while it has some: agent/grpc/
  // worker_endpoint.h). Called once per accepted launch, before anything is
  // created; an error refuses the launch whole. Unset: agent_target.
  std::function<absl::StatusOr<std::string>()> open_worker_endpoint;
  // Told, on the executor, the ids of the tests this node runs each time a
  // test is added or removed (the agent's heartbeats carry them, and an
  // empty list starts its idle linger). Unset: nobody is told.
  std::function<void(const std::vector<std::string>& running_test_ids)> running_tests_changed;
};

class WorkerSupervisor {
 public:
  WorkerSupervisor(const AgentCoreConfig& config, SupervisorEnvironment environment,
                   common::Clock& clock, common::Executor& executor,
                   common::ProcessLauncher& launcher, CoordinatorSink& sink);
  ~WorkerSupervisor();

  // Spawns the test's ranks. Problems (a rank on a GPU another rank of the
  // test already uses, spawn failures, a test id already running) are
  // reported to the coordinator as failures of the ranks concerned, and the
  // test's other workers are stopped.
  void Launch(const ebnccl::v1::LaunchTest& launch);
  // Stops the test's workers (graduated); reports WorkersStopped when all
  // are reaped. Exits caused by the stop are not reported as failures.
  void Stop(const std::string& test_id, const std::string& reason);
  // Stops every test (the coordinator went away, or shutdown), without
  // asking NCCL's RAS.
  void StopAll(const std::string& reason);

  // WorkerControl calls. PERMISSION_DENIED for an unknown test, rank or a
  // wrong token; FAILED_PRECONDITION once the worker's test is stopping.
  absl::StatusOr<ebnccl::v1::RegisterWorkerReply> RegisterWorker(
      const ebnccl::v1::RegisterWorkerRequest& request);
  // Returns true when the worker must stop.
  absl::StatusOr<bool> Heartbeat(const ebnccl::v1::WorkerHeartbeatRequest& request);
  absl::Status ReportEvent(const ebnccl::v1::ReportWorkerEventRequest& request);
  // OK when `token` belongs to a live worker of `test_id` (rendezvous relay).
  absl::Status CheckToken(const std::string& token, const std::string& test_id) const;

  // Tests with live workers.
  std::vector<std::string> RunningTests() const;
  // Live (unreaped) workers over all tests.
  int LiveWorkers() const;

 private:
  // Launch's steps, in order. Admit: CheckLaunch passes and no test of that
  // id runs here; else false, the launch refused (reported) or, a
  // duplicate, ignored.
  bool Admit(const ebnccl::v1::LaunchTest& launch);
  // The WorkerControl target the workers dial (open_worker_endpoint);
  // nullopt, with the launch refused, when it cannot open.
  std::optional<std::string> OpenWorkerEndpoint(const ebnccl::v1::LaunchTest& launch);
  // Where the launch's workers run: `agent_target` and the test's RAS port.
  LaunchSite SiteFor(const ebnccl::v1::LaunchTest& launch, std::string agent_target) const;
  // Records the test and its planned workers, before anything starts.
  SupervisedTest& AddTest(const ebnccl::v1::LaunchTest& launch, const LaunchPlan& plan);
  // Reports the ranks the plan refused: nothing starts, and the test ends.
  void RefuseRanks(SupervisedTest& test, const LaunchPlan& plan);
  // Creates the test's log directory and spawns every worker; stops the
  // test when a rank could not be started.
  void SpawnWorkers(SupervisedTest& test, const LaunchPlan& plan);
  void Spawn(const std::string& test_id, SupervisedWorker& worker, const common::ProcessSpec& spec);

  SupervisedWorker* FindWorker(const std::string& test_id, int rank, const std::string& token,
                               absl::Status* error);
  void StopOne(const std::string& test_id, const std::string& reason, bool ask_ras);
  void OnExit(const std::string& test_id, int rank, const common::ExitInfo& exit);
  // Ends the test once every worker is reaped (and RAS, when asked, has
  // answered): WorkersStopped with the evidence. `test_id` must not refer
  // to the test's own id, which ends here.
  void MaybeFinish(const std::string& test_id);
  void TellRunningTests() const;

  const AgentCoreConfig config_;
  const SupervisorEnvironment environment_;
  common::Executor& executor_;
  common::Clock& clock_;
  common::ProcessLauncher& launcher_;
  SupervisedTests tests_;
  WorkerReports reports_;
  EvidenceCollector evidence_;
  StopSequence stop_;
  WorkerWatchdog watchdog_;
};

}  // namespace eb::agent
