#pragma once

// Spawns and supervises one worker per rank of each test on this node
// (STYLE.md rules 13-17): registration deadline, heartbeat watchdog, exit
// classification, graduated stop (SIGTERM, SIGCONT, grace, SIGKILL to the
// process group), and the reports that name rank, node and slot. Once every
// worker of a test has been reaped it tells the coordinator WorkersStopped.
//
// Owned by the agent's executor: every method runs on it. Exit callbacks
// from the launcher's reaper thread are posted onto it.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "agent/core/agent_core_config.h"
#include "agent/core/nccl_ras.h"
#include "agent/core/port_counters.h"
#include "common/exec/executor.h"
#include "common/process/process_launcher.h"
#include "common/time/clock.h"
#include "ebnccl/v1/agent.pb.h"
#include "ebnccl/v1/worker.pb.h"

namespace eb::agent {

// Where the supervisor's reports go (the coordinator session).
class CoordinatorSink {
 public:
  virtual ~CoordinatorSink() = default;
  // Thread-safe, non-blocking; dropped when disconnected.
  virtual void SendToCoordinator(const ebnccl::v1::AgentMessage& message) = 0;
};

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
  struct Worker {
    ebnccl::v1::RankAssignment assignment;
    std::string token;
    std::string log_path;
    common::ChildHandle child;
    bool spawned = false;
    bool registered = false;
    bool finished = false;
    // A failure of this rank was already reported (no second report).
    bool reported = false;
    bool exited = false;
    // Found hung while RAS is queried: SIGKILLed once the query is over.
    bool kill_after_ras = false;
    // Which stop signals this agent sent it: an exit by any other signal
    // during a stop was not caused by the stop (DiedOfItsOwnDuringStop).
    bool sent_sigterm = false;
    bool sent_sigkill = false;
    absl::Time last_heartbeat;
  };
  struct Test {
    ebnccl::v1::LaunchTest launch;
    std::vector<Worker> workers;
    bool stopping = false;
    common::TimerId register_timer = 0;
    common::TimerId watchdog_timer = 0;
    common::TimerId kill_timer = 0;
    // The configured ports when the test was launched.
    std::vector<PortSnapshot> ports_before;
    // NCCL_RAS_ADDR's port given to this test's NCCL workers, or 0.
    int ras_port = 0;
    // A RAS query is in flight: the workers are signalled when it ends (or
    // at ras_timer, a backstop past its deadline).
    bool ras_pending = false;
    common::TimerId ras_timer = 0;
    // What the query found, for the evidence.
    std::optional<ebnccl::v1::NcclRasStatus> ras;
  };

  Worker* FindWorker(const std::string& test_id, int rank, const std::string& token,
                     absl::Status* error);
  void OnExit(const std::string& test_id, int rank, const common::ExitInfo& exit);
  void OnRegisterDeadline(const std::string& test_id);
  void OnWatchdog(const std::string& test_id);
  void OnKillDeadline(const std::string& test_id);
  void ReportFailure(const std::string& test_id, Worker& worker, ebnccl::v1::WorkerEventKind kind,
                     ebnccl::v1::FailureKind failure_kind, const std::string& message,
                     const common::ExitInfo* exit = nullptr);
  // `ask_ras`: NCCL's RAS is queried first where ShouldQueryRas holds.
  void StopTest(Test& test, const std::string& reason, bool ask_ras = true);
  void StopOne(const std::string& test_id, const std::string& reason, bool ask_ras);
  // The part of the stop after the RAS query: SIGTERM (and SIGKILL for the
  // hung), then the grace timer.
  void SignalStop(Test& test);
  // True when `exit`, seen while the worker's test is stopping, is not the
  // stop's doing: a SIGKILL this agent never sent (the OOM killer, an
  // operator), or a death by signal before the agent signalled anything.
  // The stop that such an exit races with was usually caused by it (a peer
  // saw the connection reset first), so it must still be reported.
  static bool DiedOfItsOwnDuringStop(const Worker& worker, const common::ExitInfo& exit);
  // The RAS query ended (`exchange`) or its backstop fired (nullopt).
  void OnRasDone(const std::string& test_id, std::optional<NcclRasExchange> exchange);
  // RAS is worth asking: an NCCL test with a RAS port, and a registered
  // worker that is alive and has not finished.
  bool ShouldQueryRas(const Test& test) const;
  // Reports a launch refused before anything was created (by CheckLaunch,
  // or because the worker endpoint cannot open).
  // `hint` ends the message (what the operator should look at).
  void RefuseLaunch(const ebnccl::v1::LaunchTest& launch, const absl::Status& refused,
                    absl::string_view hint);
  void KillWorker(Worker& worker);
  void MaybeFinish(const std::string& test_id);
  // Port deltas, NCCL warnings of ranks that did not finish, NICs used.
  ebnccl::v1::NodeTestEvidence CollectEvidence(const Test& test) const;

  const AgentCoreConfig config_;
  const SupervisorEnvironment environment_;
  common::Clock& clock_;
  common::Executor& executor_;
  common::ProcessLauncher& launcher_;
  CoordinatorSink& sink_;
  std::map<std::string, Test> tests_;
  // Replies of RAS queries arrive on other threads and are posted onto the
  // executor; they find this gone once the supervisor is destroyed.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

}  // namespace eb::agent
