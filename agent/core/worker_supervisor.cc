#include "agent/core/worker_supervisor.h"

#include <signal.h>

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/core/launch_check.h"
#include "agent/core/nccl_log.h"
#include "agent/core/worker_spec.h"
#include "spdlog/spdlog.h"

namespace eb::agent {
namespace v1 = ebnccl::v1;

namespace {

std::string Seconds(absl::Duration d) { return absl::StrFormat("%.3gs", absl::ToDoubleSeconds(d)); }

}  // namespace

WorkerSupervisor::WorkerSupervisor(const AgentCoreConfig& config, SupervisorEnvironment environment,
                                   common::Clock& clock, common::Executor& executor,
                                   common::ProcessLauncher& launcher, CoordinatorSink& sink)
    : config_(config),
      environment_(std::move(environment)),
      clock_(clock),
      executor_(executor),
      launcher_(launcher),
      sink_(sink) {}

WorkerSupervisor::~WorkerSupervisor() {
  for (auto& [id, test] : tests_) {
    executor_.Cancel(test.register_timer);
    executor_.Cancel(test.watchdog_timer);
    executor_.Cancel(test.kill_timer);
    executor_.Cancel(test.ras_timer);
  }
}

void WorkerSupervisor::Launch(const v1::LaunchTest& launch) {
  const std::string& test_id = launch.test_id();
  // What the coordinator sent goes to the workers, which run as this agent's
  // user (root): refuse it whole, before anything is created or started,
  // when it is not runnable or not safe (launch_check.h).
  if (absl::Status refused = CheckLaunch(launch, config_.worker_slots); !refused.ok()) {
    RefuseLaunch(launch, refused, "are the coordinator and this agent the same ebnccl version?");
    return;
  }
  if (tests_.contains(test_id)) {
    spdlog::warn("test={} is already running on this node; duplicate launch ignored", test_id);
    return;
  }
  std::string agent_target = environment_.agent_target;
  if (environment_.open_worker_endpoint) {
    absl::StatusOr<std::string> opened = environment_.open_worker_endpoint();
    if (!opened.ok()) {
      RefuseLaunch(launch, opened.status(),
                   absl::StrCat("the agent cannot serve its workers; is its --run-dir ",
                                config_.run_dir, " usable?"));
      return;
    }
    agent_target = *std::move(opened);
  }
  Test& test = tests_[test_id];
  if (environment_.running_tests_changed) environment_.running_tests_changed(RunningTests());
  test.launch = launch;
  if (environment_.read_ports) test.ports_before = environment_.read_ports();
  if (launch.spec().transport() == v1::TRANSPORT_NCCL && environment_.query_ras) {
    std::set<int> in_use;
    for (const auto& [id, other] : tests_) {
      if (other.ras_port != 0) in_use.insert(other.ras_port);
    }
    test.ras_port =
        PickNcclRasPort(config_.nccl_ras_port_base, std::max(config_.worker_slots, 1), in_use);
    if (test.ras_port == 0 && config_.nccl_ras_port_base > 0) {
      spdlog::warn(
          "test={} node={}: every RAS port from {} is in use; NCCL's RAS is not queried "
          "for this test",
          test_id, config_.node_name, config_.nccl_ras_port_base);
    }
  }
  for (const v1::RankAssignment& assignment : launch.ranks()) {
    Worker& worker = test.workers.emplace_back();
    worker.assignment = assignment;
    worker.token = environment_.make_token();
    worker.log_path = WorkerLogPath(config_.run_dir, test_id, assignment.rank());
  }
  spdlog::info("test={} node={}: launching {} workers", test_id, config_.node_name,
               test.workers.size());

  // One rank per GPU per communicator (NCCL_FACTS "Duplicate GPU detected"):
  // refuse before anything starts.
  std::map<int, int> device_owner;
  for (Worker& worker : test.workers) {
    const int device = worker.assignment.device_index();
    if (device < 0) continue;
    auto [it, inserted] = device_owner.emplace(device, worker.assignment.rank());
    if (!inserted) {
      ReportFailure(test_id, worker, v1::WORKER_EVENT_KIND_EXITED, v1::FAILURE_KIND_LAUNCH_FAILED,
                    absl::StrCat("GPU ", device, " is already used by rank ", it->second,
                                 " of this test; refusing to start two ranks on one GPU"));
    }
  }
  bool refused = false;
  for (const Worker& worker : test.workers) refused |= worker.reported;
  if (refused) {
    // Nothing may start for a refused test: stop here, with no timers; the
    // other ranks are reported by the coordinator's stop.
    test.stopping = true;
    MaybeFinish(test_id);
    return;
  }
  const absl::Status log_dir =
      environment_.create_directories
          ? environment_.create_directories(WorkerLogDir(config_.run_dir, test_id))
          : absl::OkStatus();
  for (Worker& worker : test.workers) {
    if (worker.reported) continue;
    if (!log_dir.ok()) {
      ReportFailure(test_id, worker, v1::WORKER_EVENT_KIND_EXITED, v1::FAILURE_KIND_LAUNCH_FAILED,
                    absl::StrCat("cannot create the log directory under ", config_.run_dir, ": ",
                                 log_dir.message()));
      continue;
    }
    WorkerLaunch worker_launch{&test.launch,           &worker.assignment, worker.token,
                               environment_.agent_pid, agent_target,       worker.log_path,
                               environment_.agent_env};
    if (test.ras_port != 0) worker_launch.nccl_ras_address = NcclRasAddress(test.ras_port);
    common::ProcessSpec spec = BuildWorkerSpec(config_, worker_launch);
    // RAS turned off for this test (NCCL_RAS_ENABLE=0 in its environment):
    // nothing would answer.
    if (std::find(spec.env.begin(), spec.env.end(), "NCCL_RAS_ENABLE=0") != spec.env.end()) {
      test.ras_port = 0;
    }
    const int rank = worker.assignment.rank();
    auto child = launcher_.Spawn(spec, [this, test_id, rank](const common::ExitInfo& exit) {
      executor_.Post([this, test_id, rank, exit] { OnExit(test_id, rank, exit); });
    });
    if (!child.ok()) {
      ReportFailure(
          test_id, worker, v1::WORKER_EVENT_KIND_EXITED, v1::FAILURE_KIND_LAUNCH_FAILED,
          absl::StrCat("cannot start ", config_.worker_binary, ": ", child.status().message()));
      continue;
    }
    worker.child = *child;
    worker.spawned = true;
    spdlog::info("test={} rank={} node={} slot={}: started pid {} (log {})", test_id, rank,
                 config_.node_name, worker.assignment.local_rank(), child->pid, worker.log_path);
  }
  for (const Worker& worker : test.workers) {
    if (worker.reported) {
      StopTest(test, "a rank could not be started");
      break;
    }
  }
  if (!test.stopping) {
    test.register_timer = executor_.PostAfter(absl::Milliseconds(launch.register_timeout_ms()),
                                              [this, test_id] { OnRegisterDeadline(test_id); });
    test.watchdog_timer =
        executor_.PostAfter(std::min(config_.worker_hang_timeout / 4, absl::Seconds(1)),
                            [this, test_id] { OnWatchdog(test_id); });
  }
  MaybeFinish(test_id);
}

void WorkerSupervisor::RefuseLaunch(const v1::LaunchTest& launch, const absl::Status& refused,
                                    absl::string_view hint) {
  // The error goes back as the first rank's EXITED event, then
  // WorkersStopped: the coordinator fails the test with this message at
  // once instead of waiting for a registration deadline. Only what this
  // node checked is echoed: the test id as sent (the coordinator matches
  // on it; gRPC bounds its size) and the first rank's numbers.
  const std::string message = absl::StrCat(
      "the agent on node ", config_.node_name,
      " refused the launch, nothing was started: ", refused.ToString(), " (", hint, ")");
  spdlog::error("refused a launch from the coordinator: {}", refused.ToString());
  v1::AgentMessage out;
  v1::WorkerEvent& event = *out.mutable_worker_event();
  event.set_test_id(launch.test_id());
  const int rank = launch.ranks_size() > 0 ? launch.ranks(0).rank() : 0;
  event.set_rank(rank);
  event.set_kind(v1::WORKER_EVENT_KIND_EXITED);
  v1::Failure& failure = *event.mutable_failure();
  failure.set_kind(v1::FAILURE_KIND_LAUNCH_FAILED);
  failure.set_rank(rank);
  failure.set_node_name(config_.node_name);
  failure.set_message(message);
  sink_.SendToCoordinator(out);
  v1::AgentMessage stopped;
  stopped.mutable_workers_stopped()->set_test_id(launch.test_id());
  sink_.SendToCoordinator(stopped);
}

void WorkerSupervisor::Stop(const std::string& test_id, const std::string& reason) {
  StopOne(test_id, reason, /*ask_ras=*/true);
}

void WorkerSupervisor::StopOne(const std::string& test_id, const std::string& reason,
                               bool ask_ras) {
  auto it = tests_.find(test_id);
  if (it == tests_.end()) {
    // Nothing runs here for it (already reaped): confirm so the coordinator
    // does not wait.
    v1::AgentMessage message;
    message.mutable_workers_stopped()->set_test_id(test_id);
    sink_.SendToCoordinator(message);
    return;
  }
  StopTest(it->second, reason, ask_ras);
  MaybeFinish(test_id);
}

void WorkerSupervisor::StopAll(const std::string& reason) {
  std::vector<std::string> ids;
  for (auto& [id, test] : tests_) ids.push_back(id);
  // No RAS query: the agent is shutting down (its wait for the workers is
  // bounded) or has lost the coordinator (no report would carry it).
  for (const std::string& id : ids) StopOne(id, reason, /*ask_ras=*/false);
}

void WorkerSupervisor::StopTest(Test& test, const std::string& reason, bool ask_ras) {
  if (test.stopping) return;
  test.stopping = true;
  const std::string& test_id = test.launch.test_id();
  spdlog::info("test={} node={}: stopping workers: {}", test_id, config_.node_name, reason);
  executor_.Cancel(test.register_timer);
  executor_.Cancel(test.watchdog_timer);
  // A worker that had already stopped heartbeating is the likely cause of
  // the stop (a hang, SIGSTOP): say so before the stop hides it.
  const absl::Time now = clock_.Now();
  const absl::Duration stale = 3 * config_.worker_heartbeat_period;
  for (Worker& worker : test.workers) {
    if (worker.registered && !worker.finished && !worker.exited && !worker.reported &&
        now - worker.last_heartbeat > stale) {
      ReportFailure(test_id, worker, v1::WORKER_EVENT_KIND_FAILED, v1::FAILURE_KIND_WORKER_HUNG,
                    absl::StrCat("had stopped heartbeating ", Seconds(now - worker.last_heartbeat),
                                 " before the test was stopped"));
    }
  }
  if (ask_ras && ShouldQueryRas(test)) {
    // NCCL's RAS lives in the workers: ask it before they are signalled.
    spdlog::info("test={} node={}: querying NCCL RAS on port {} before the stop", test_id,
                 config_.node_name, test.ras_port);
    test.ras_pending = true;
    std::weak_ptr<int> alive = alive_;
    environment_.query_ras(test.ras_port, [this, alive, test_id](NcclRasExchange exchange) {
      executor_.Post([this, alive, test_id, exchange = std::move(exchange)]() mutable {
        if (alive.lock()) OnRasDone(test_id, std::move(exchange));
      });
    });
    // The query ends within its deadline; this only guards the stop
    // against a query that never calls back.
    test.ras_timer = executor_.PostAfter(environment_.ras_limits.deadline + absl::Seconds(1),
                                         [this, test_id] { OnRasDone(test_id, std::nullopt); });
    return;
  }
  SignalStop(test);
}

bool WorkerSupervisor::ShouldQueryRas(const Test& test) const {
  if (test.ras_port == 0 || !environment_.query_ras) return false;
  for (const Worker& worker : test.workers) {
    if (worker.spawned && worker.registered && !worker.exited && !worker.finished) return true;
  }
  return false;
}

void WorkerSupervisor::OnRasDone(const std::string& test_id,
                                 std::optional<NcclRasExchange> exchange) {
  auto it = tests_.find(test_id);
  if (it == tests_.end() || !it->second.ras_pending) return;
  Test& test = it->second;
  test.ras_pending = false;
  executor_.Cancel(test.ras_timer);
  if (exchange.has_value()) {
    test.ras =
        SummarizeNcclRas(config_.node_name, test.ras_port, *exchange, environment_.ras_limits);
  } else {
    v1::NcclRasStatus status;
    status.set_node_name(config_.node_name);
    status.set_port(test.ras_port);
    status.set_error("the RAS query did not end in time");
    test.ras = std::move(status);
  }
  spdlog::info("test={} node={}: NCCL RAS on port {}: {} bytes{}", test_id, config_.node_name,
               test.ras_port, test.ras->text().size(),
               test.ras->error().empty() ? "" : absl::StrCat(" (", test.ras->error(), ")"));
  SignalStop(test);
  MaybeFinish(test_id);
}

void WorkerSupervisor::SignalStop(Test& test) {
  const std::string test_id = test.launch.test_id();
  for (Worker& worker : test.workers) {
    if (worker.kill_after_ras) KillWorker(worker);
  }
  for (Worker& worker : test.workers) {
    if (!worker.spawned || worker.exited) continue;
    worker.sent_sigterm = true;
    (void)launcher_.SignalGroup(worker.child, SIGTERM);
    // A stopped (SIGSTOP) process only acts on SIGTERM once continued.
    (void)launcher_.SignalGroup(worker.child, SIGCONT);
  }
  test.kill_timer =
      executor_.PostAfter(config_.worker_grace, [this, test_id] { OnKillDeadline(test_id); });
}

void WorkerSupervisor::OnKillDeadline(const std::string& test_id) {
  auto it = tests_.find(test_id);
  if (it == tests_.end()) return;
  for (Worker& worker : it->second.workers) {
    if (worker.spawned && !worker.exited) {
      spdlog::warn("test={} rank={}: still alive {} after SIGTERM; sending SIGKILL", test_id,
                   worker.assignment.rank(), Seconds(config_.worker_grace));
      KillWorker(worker);
    }
  }
}

void WorkerSupervisor::KillWorker(Worker& worker) {
  if (!worker.spawned || worker.exited) return;
  worker.sent_sigkill = true;
  (void)launcher_.SignalGroup(worker.child, SIGKILL);
}

bool WorkerSupervisor::DiedOfItsOwnDuringStop(const Worker& worker, const common::ExitInfo& exit) {
  if (exit.signal == SIGKILL) return !worker.sent_sigkill;
  // An exit with a code is how a worker obeys SIGTERM, or how it ends after
  // its peer failed: both follow from the stop or from what caused it.
  if (exit.signal == 0) return false;
  return !worker.sent_sigterm;
}

void WorkerSupervisor::OnExit(const std::string& test_id, int rank, const common::ExitInfo& exit) {
  auto it = tests_.find(test_id);
  if (it == tests_.end()) return;
  Test& test = it->second;
  for (Worker& worker : test.workers) {
    if (worker.assignment.rank() != rank) continue;
    worker.exited = true;
    spdlog::info("test={} rank={} node={}: pid {} {}", test_id, rank, config_.node_name, exit.pid,
                 exit.Describe());
    const bool unexpected = !test.stopping || DiedOfItsOwnDuringStop(worker, exit);
    if (unexpected && !worker.finished && !worker.reported) {
      ReportFailure(
          test_id, worker, v1::WORKER_EVENT_KIND_EXITED, v1::FAILURE_KIND_WORKER_EXITED,
          absl::StrCat("worker process ", exit.pid, " ", exit.Describe(), " before finishing"),
          &exit);
      StopTest(test, absl::StrCat("rank ", rank, " exited"));
    } else if (worker.finished && (exit.exit_code != 0 || exit.signal != 0)) {
      spdlog::warn("test={} rank={}: {} after finishing", test_id, rank, exit.Describe());
    }
    break;
  }
  MaybeFinish(test_id);
}

void WorkerSupervisor::OnRegisterDeadline(const std::string& test_id) {
  auto it = tests_.find(test_id);
  if (it == tests_.end() || it->second.stopping) return;
  Test& test = it->second;
  bool any = false;
  for (Worker& worker : test.workers) {
    if (!worker.spawned || worker.registered || worker.exited) continue;
    any = true;
    ReportFailure(test_id, worker, v1::WORKER_EVENT_KIND_EXITED,
                  v1::FAILURE_KIND_WORKER_REGISTRATION_TIMEOUT,
                  absl::StrCat("did not register with the agent within ",
                               Seconds(absl::Milliseconds(test.launch.register_timeout_ms()))));
  }
  if (any) StopTest(test, "a worker did not register in time");
}

void WorkerSupervisor::OnWatchdog(const std::string& test_id) {
  auto it = tests_.find(test_id);
  if (it == tests_.end() || it->second.stopping) return;
  Test& test = it->second;
  const absl::Time now = clock_.Now();
  bool hung = false;
  for (Worker& worker : test.workers) {
    if (!worker.registered || worker.finished || worker.exited || worker.reported) continue;
    const absl::Duration silence = now - worker.last_heartbeat;
    if (silence <= config_.worker_hang_timeout) continue;
    hung = true;
    ReportFailure(test_id, worker, v1::WORKER_EVENT_KIND_FAILED, v1::FAILURE_KIND_WORKER_HUNG,
                  absl::StrCat("stopped heartbeating for ", Seconds(silence), "; killed as hung"));
    // With RAS to ask, the kill waits for its answer (StopTest): the hung
    // rank's RAS thread may still tell where it is stuck.
    worker.kill_after_ras = true;
  }
  if (hung) {
    if (!ShouldQueryRas(test)) {
      for (Worker& worker : test.workers) {
        if (worker.kill_after_ras) {
          worker.kill_after_ras = false;
          KillWorker(worker);
        }
      }
    }
    StopTest(test, "a worker hung");
    return;
  }
  test.watchdog_timer =
      executor_.PostAfter(std::min(config_.worker_hang_timeout / 4, absl::Seconds(1)),
                          [this, test_id] { OnWatchdog(test_id); });
}

void WorkerSupervisor::ReportFailure(const std::string& test_id, Worker& worker,
                                     v1::WorkerEventKind kind, v1::FailureKind failure_kind,
                                     const std::string& message, const common::ExitInfo* exit) {
  if (worker.reported) return;
  worker.reported = true;
  v1::AgentMessage out;
  v1::WorkerEvent& event = *out.mutable_worker_event();
  event.set_test_id(test_id);
  event.set_rank(worker.assignment.rank());
  event.set_kind(kind);
  v1::Failure& failure = *event.mutable_failure();
  failure.set_kind(failure_kind);
  failure.set_rank(worker.assignment.rank());
  failure.set_node_name(worker.assignment.node_name());
  failure.set_local_rank(worker.assignment.local_rank());
  failure.set_device_index(worker.assignment.device_index());
  failure.set_message(absl::StrCat(message, " (log: ", worker.log_path, ")"));
  if (exit != nullptr) {
    failure.set_exit_code(exit->exit_code);
    failure.set_signal(exit->signal);
  }
  spdlog::warn("test={} rank={} node={} slot={}: {}", test_id, worker.assignment.rank(),
               config_.node_name, worker.assignment.local_rank(), failure.message());
  sink_.SendToCoordinator(out);
}

WorkerSupervisor::Worker* WorkerSupervisor::FindWorker(const std::string& test_id, int rank,
                                                       const std::string& token,
                                                       absl::Status* error) {
  auto it = tests_.find(test_id);
  if (it != tests_.end()) {
    for (Worker& worker : it->second.workers) {
      if (worker.assignment.rank() == rank && worker.token == token && !token.empty()) {
        if (it->second.stopping) {
          *error = absl::FailedPreconditionError(absl::StrCat("test ", test_id, " is stopping"));
          return nullptr;
        }
        return &worker;
      }
    }
  }
  *error = absl::PermissionDeniedError(
      absl::StrCat("no worker of test ", test_id, " rank ", rank, " with this token"));
  return nullptr;
}

absl::StatusOr<v1::RegisterWorkerReply> WorkerSupervisor::RegisterWorker(
    const v1::RegisterWorkerRequest& request) {
  absl::Status error;
  Worker* worker = FindWorker(request.test_id(), request.rank(), request.worker_token(), &error);
  if (worker == nullptr) return error;
  worker->last_heartbeat = clock_.Now();
  if (!worker->registered) {
    worker->registered = true;
    v1::AgentMessage out;
    v1::WorkerEvent& event = *out.mutable_worker_event();
    event.set_test_id(request.test_id());
    event.set_rank(request.rank());
    event.set_kind(v1::WORKER_EVENT_KIND_REGISTERED);
    sink_.SendToCoordinator(out);
  }
  // Everything the worker needs beyond the identity on its command line
  // (the assignment names its GPU and that GPU's bus id).
  const v1::LaunchTest& launch = tests_.at(request.test_id()).launch;
  v1::RegisterWorkerReply reply;
  *reply.mutable_assignment() = worker->assignment;
  *reply.mutable_spec() = launch.spec();
  reply.set_heartbeat_period_ms(absl::ToInt64Milliseconds(config_.worker_heartbeat_period));
  *reply.mutable_sizes_bytes() = launch.sizes_bytes();
  reply.set_init_timeout_ms(launch.init_timeout_ms());
  reply.set_op_timeout_ms(launch.op_timeout_ms());
  reply.set_bootstrap_interface(config_.bootstrap_interface);
  reply.set_bootstrap_address(config_.bootstrap_address);
  return reply;
}

absl::StatusOr<bool> WorkerSupervisor::Heartbeat(const v1::WorkerHeartbeatRequest& request) {
  auto it = tests_.find(request.test_id());
  if (it != tests_.end() && it->second.stopping) return true;
  absl::Status error;
  Worker* worker = FindWorker(request.test_id(), request.rank(), request.worker_token(), &error);
  if (worker == nullptr) return error;
  worker->last_heartbeat = clock_.Now();
  return false;
}

absl::Status WorkerSupervisor::ReportEvent(const v1::ReportWorkerEventRequest& request) {
  const v1::WorkerEvent& event = request.event();
  absl::Status error;
  Worker* worker = FindWorker(event.test_id(), event.rank(), request.worker_token(), &error);
  if (worker == nullptr) return error;
  worker->last_heartbeat = clock_.Now();
  switch (event.kind()) {
    case v1::WORKER_EVENT_KIND_JOINING:
    case v1::WORKER_EVENT_KIND_JOINED:
    case v1::WORKER_EVENT_KIND_SIZE_DONE:
      break;
    case v1::WORKER_EVENT_KIND_FINISHED:
      worker->finished = true;
      break;
    case v1::WORKER_EVENT_KIND_FAILED:
      if (worker->reported) return absl::OkStatus();
      worker->reported = true;
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("event.kind: a worker may not report ",
                                                     v1::WorkerEventKind_Name(event.kind())));
  }
  v1::AgentMessage out;
  *out.mutable_worker_event() = event;
  if (event.kind() == v1::WORKER_EVENT_KIND_FAILED) {
    // The agent, not the worker, knows where the rank runs.
    v1::Failure& failure = *out.mutable_worker_event()->mutable_failure();
    failure.set_rank(worker->assignment.rank());
    failure.set_node_name(worker->assignment.node_name());
    failure.set_local_rank(worker->assignment.local_rank());
    failure.set_device_index(worker->assignment.device_index());
    failure.set_message(absl::StrCat(failure.message(), " (log: ", worker->log_path, ")"));
  }
  sink_.SendToCoordinator(out);
  return absl::OkStatus();
}

absl::Status WorkerSupervisor::CheckToken(const std::string& token,
                                          const std::string& test_id) const {
  auto it = tests_.find(test_id);
  if (it != tests_.end() && !token.empty()) {
    for (const Worker& worker : it->second.workers) {
      if (worker.token == token && !worker.exited) return absl::OkStatus();
    }
  }
  return absl::PermissionDeniedError(
      absl::StrCat("no live worker of test ", test_id, " with this token"));
}

std::vector<std::string> WorkerSupervisor::RunningTests() const {
  std::vector<std::string> ids;
  for (const auto& [id, test] : tests_) ids.push_back(id);
  return ids;
}

int WorkerSupervisor::LiveWorkers() const {
  int live = 0;
  for (const auto& [id, test] : tests_) {
    for (const Worker& worker : test.workers) live += worker.spawned && !worker.exited;
  }
  return live;
}

void WorkerSupervisor::MaybeFinish(const std::string& test_id) {
  auto it = tests_.find(test_id);
  if (it == tests_.end()) return;
  // The RAS reply is part of the evidence: wait for it (bounded by its
  // backstop timer) even when every worker is already gone.
  if (it->second.ras_pending) return;
  for (const Worker& worker : it->second.workers) {
    if (worker.spawned && !worker.exited) return;
  }
  Test& test = it->second;
  executor_.Cancel(test.register_timer);
  executor_.Cancel(test.watchdog_timer);
  executor_.Cancel(test.kill_timer);
  spdlog::info("test={} node={}: every worker has exited", test_id, config_.node_name);
  v1::AgentMessage message;
  message.mutable_workers_stopped()->set_test_id(test_id);
  if (v1::NodeTestEvidence evidence = CollectEvidence(test); evidence.ByteSizeLong() > 0) {
    *message.mutable_workers_stopped()->mutable_evidence() = std::move(evidence);
  }
  tests_.erase(it);
  if (environment_.running_tests_changed) environment_.running_tests_changed(RunningTests());
  sink_.SendToCoordinator(message);
}

v1::NodeTestEvidence WorkerSupervisor::CollectEvidence(const Test& test) const {
  v1::NodeTestEvidence evidence;
  if (environment_.read_ports) {
    for (v1::PortEvidence& port :
         DiffPorts(config_.node_name, test.ports_before, environment_.read_ports())) {
      *evidence.add_ports() = std::move(port);
    }
  }
  // Asked before the workers were signalled (StopTest).
  if (test.ras.has_value()) *evidence.mutable_nccl_ras() = *test.ras;
  if (!environment_.read_log) return evidence;
  // docs/DESIGN.md, "NCCL's own diagnosis": the end of each log is read
  // (NCCL's warnings come last, as the rank fails); kMaxNodeWarningBytes
  // bounds a node's share.
  constexpr size_t kTailBytes = 64 * 1024;
  constexpr size_t kHeadBytes = 256 * 1024;
  constexpr size_t kMaxNodeWarningBytes = 64 * 1024;
  size_t node_bytes = 0;
  for (const Worker& worker : test.workers) {
    if (!worker.spawned) continue;
    const int rank = worker.assignment.rank();
    // A rank that finished has nothing to explain; one that failed, was
    // stopped or timed out may.
    if (!worker.finished && node_bytes < kMaxNodeWarningBytes) {
      const std::string tail = environment_.read_log(worker.log_path, false, kTailBytes);
      NcclWarnings warnings = ExtractNcclWarnings(tail, NcclWarningLimits{},
                                                  /*partial_first_line=*/tail.size() >= kTailBytes);
      if (!warnings.lines.empty()) {
        v1::RankNcclWarnings& out = *evidence.add_nccl_warnings();
        out.set_rank(rank);
        out.set_node_name(worker.assignment.node_name());
        out.set_truncated(warnings.truncated);
        for (std::string& line : warnings.lines) {
          node_bytes += line.size();
          *out.add_lines() = std::move(line);
        }
      }
    }
    // NCCL names the NICs of its channels at init (NCCL_DEBUG=INFO), near
    // the start of the log.
    if (test.launch.spec().transport() == v1::TRANSPORT_NCCL) {
      std::vector<std::string> nics =
          ParseNicUse(environment_.read_log(worker.log_path, true, kHeadBytes));
      if (!nics.empty()) {
        v1::RankNicUse& use = *evidence.add_nic_use();
        use.set_rank(rank);
        use.set_node_name(worker.assignment.node_name());
        for (std::string& nic : nics) *use.add_nics() = std::move(nic);
      }
    }
  }
  return evidence;
}

}  // namespace eb::agent
