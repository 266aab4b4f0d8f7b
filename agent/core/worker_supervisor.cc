#include "agent/core/worker_supervisor.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/core/launch_check.h"
#include "agent/core/worker_spec.h"
#include "spdlog/spdlog.h"

namespace eb::agent {
namespace v1 = ebnccl::v1;

WorkerSupervisor::WorkerSupervisor(const AgentCoreConfig& config, SupervisorEnvironment environment,
                                   common::Clock& clock, common::Executor& executor,
                                   common::ProcessLauncher& launcher, CoordinatorSink& sink)
    : config_(config),
      environment_(std::move(environment)),
      executor_(executor),
      clock_(clock),
      launcher_(launcher),
      reports_(config_.node_name, sink),
      evidence_(config_.node_name,
                {environment_.read_ports, environment_.read_tcp, environment_.read_log}),
      stop_(config_, {environment_.query_ras, environment_.ras_limits}, clock_, executor_,
            launcher_, tests_, reports_,
            [this](const std::string& test_id) { MaybeFinish(test_id); }),
      watchdog_(config_, clock_, executor_, tests_, reports_, stop_) {}

WorkerSupervisor::~WorkerSupervisor() {
  for (auto& [id, test] : tests_) {
    executor_.Cancel(test.register_timer);
    executor_.Cancel(test.watchdog_timer);
    executor_.Cancel(test.kill_timer);
    executor_.Cancel(test.ras_timer);
  }
}

void WorkerSupervisor::Launch(const v1::LaunchTest& launch) {
  if (!Admit(launch)) return;
  std::optional<std::string> agent_target = OpenWorkerEndpoint(launch);
  if (!agent_target.has_value()) return;
  const LaunchPlan plan = PlanLaunch(config_, launch, SiteFor(launch, *std::move(agent_target)),
                                     environment_.make_token);
  SupervisedTest& test = AddTest(launch, plan);
  if (plan.refused()) {
    RefuseRanks(test, plan);
  } else {
    SpawnWorkers(test, plan);
    if (!test.stopping) watchdog_.Watch(test);
  }
  MaybeFinish(launch.test_id());
}

bool WorkerSupervisor::Admit(const v1::LaunchTest& launch) {
  // What the coordinator sent goes to the workers, which run as this
  // agent's user (root): refused whole, before anything is created or
  // started, when it is not runnable or not safe (launch_check.h).
  if (absl::Status refused = CheckLaunch(launch, config_.worker_slots); !refused.ok()) {
    reports_.LaunchRefused(launch, refused,
                           "are the coordinator and this agent the same ebnccl version?");
    return false;
  }
  if (tests_.contains(launch.test_id())) {
    spdlog::warn("test={} is already running on this node; duplicate launch ignored",
                 launch.test_id());
    return false;
  }
  // The slots bound the node's workers whatever the sequence of launches
  // (issue 32 item 8), not only within one: a test whose stop the
  // coordinator stopped waiting for may still have workers on the GPUs.
  int occupied = 0;
  std::vector<std::string> holders;
  for (const auto& [id, test] : tests_) {
    int held = 0;
    for (const SupervisedWorker& worker : test.workers) {
      if (worker.alive() || (!worker.spawned && !test.stopping)) ++held;
    }
    if (held > 0) holders.push_back(absl::StrCat(id, " (", held, ")"));
    occupied += held;
  }
  if (occupied + launch.ranks_size() > config_.worker_slots) {
    reports_.LaunchRefused(
        launch,
        absl::ResourceExhaustedError(
            absl::StrCat("ranks: ", launch.ranks_size(), " more workers beside the ", occupied,
                         " of tests still running here (", absl::StrJoin(holders, ", "),
                         ") exceed this node's ", config_.worker_slots, " worker slots")),
        "a test of this node has not finished stopping; is one of its workers stuck?");
    return false;
  }
  return true;
}

std::optional<std::string> WorkerSupervisor::OpenWorkerEndpoint(const v1::LaunchTest& launch) {
  if (!environment_.open_worker_endpoint) return environment_.agent_target;
  absl::StatusOr<std::string> opened = environment_.open_worker_endpoint();
  if (!opened.ok()) {
    reports_.LaunchRefused(launch, opened.status(),
                           absl::StrCat("the agent cannot serve its workers; is its --run-dir ",
                                        config_.run_dir, " usable?"));
    return std::nullopt;
  }
  return *std::move(opened);
}

LaunchSite WorkerSupervisor::SiteFor(const v1::LaunchTest& launch, std::string agent_target) const {
  LaunchSite site{environment_.agent_pid, std::move(agent_target), environment_.agent_env};
  if (launch.spec().transport() != v1::TRANSPORT_NCCL || !environment_.query_ras) return site;
  // Each running NCCL test has its own RAS port: tests sharing one would
  // answer for each other.
  std::set<int> in_use;
  for (const auto& [id, other] : tests_) {
    if (other.ras_port != 0) in_use.insert(other.ras_port);
  }
  site.ras_port =
      PickNcclRasPort(config_.nccl_ras_port_base, std::max(config_.worker_slots, 1), in_use);
  if (site.ras_port == 0 && config_.nccl_ras_port_base > 0) {
    spdlog::warn(
        "test={} node={}: every RAS port from {} is in use; NCCL's RAS is not queried for this "
        "test",
        launch.test_id(), config_.node_name, config_.nccl_ras_port_base);
  }
  return site;
}

SupervisedTest& WorkerSupervisor::AddTest(const v1::LaunchTest& launch, const LaunchPlan& plan) {
  SupervisedTest& test = tests_[launch.test_id()];
  TellRunningTests();
  test.launch = launch;
  test.ras_port = plan.ras_port;
  evidence_.AtLaunch(test);
  for (const PlannedWorker& planned : plan.workers) {
    SupervisedWorker& worker = test.workers.emplace_back();
    worker.assignment = planned.assignment;
    worker.token = planned.token;
    worker.log_path = planned.log_path;
  }
  spdlog::info("test={} node={}: launching {} workers", test.id(), config_.node_name,
               test.workers.size());
  return test;
}

void WorkerSupervisor::RefuseRanks(SupervisedTest& test, const LaunchPlan& plan) {
  for (size_t i = 0; i < test.workers.size(); ++i) {
    if (plan.workers[i].refusal.empty()) continue;
    reports_.Failure(test.id(), test.workers[i], v1::WORKER_EVENT_KIND_EXITED,
                     v1::FAILURE_KIND_LAUNCH_FAILED, plan.workers[i].refusal);
  }
  // Nothing may start for a refused test: it ends at once, with no timers;
  // the other ranks are reported by the coordinator's stop.
  test.stopping = true;
}

void WorkerSupervisor::SpawnWorkers(SupervisedTest& test, const LaunchPlan& plan) {
  const absl::Status log_dir =
      environment_.create_directories
          ? environment_.create_directories(WorkerLogDir(config_.run_dir, test.id()))
          : absl::OkStatus();
  bool all_started = true;
  for (size_t i = 0; i < test.workers.size(); ++i) {
    SupervisedWorker& worker = test.workers[i];
    if (!log_dir.ok()) {
      reports_.Failure(test.id(), worker, v1::WORKER_EVENT_KIND_EXITED,
                       v1::FAILURE_KIND_LAUNCH_FAILED,
                       absl::StrCat("cannot create the log directory under ", config_.run_dir, ": ",
                                    log_dir.message()));
    } else {
      Spawn(test.id(), worker, plan.workers[i].spec);
    }
    all_started = all_started && worker.spawned;
  }
  if (!all_started) stop_.Begin(test, "a rank could not be started", /*ask_ras=*/true);
}

void WorkerSupervisor::Spawn(const std::string& test_id, SupervisedWorker& worker,
                             const common::ProcessSpec& spec) {
  const int rank = worker.assignment.rank();
  auto child = launcher_.Spawn(spec, [this, test_id, rank](const common::ExitInfo& exit) {
    executor_.Post([this, test_id, rank, exit] { OnExit(test_id, rank, exit); });
  });
  if (!child.ok()) {
    reports_.Failure(
        test_id, worker, v1::WORKER_EVENT_KIND_EXITED, v1::FAILURE_KIND_LAUNCH_FAILED,
        absl::StrCat("cannot start ", config_.worker_binary, ": ", child.status().message()));
    return;
  }
  worker.child = *child;
  worker.spawned = true;
  spdlog::info("test={} rank={} node={} slot={}: started pid {} (log {})", test_id, rank,
               config_.node_name, worker.assignment.local_rank(), child->pid, worker.log_path);
}

void WorkerSupervisor::Stop(const std::string& test_id, const std::string& reason) {
  StopOne(test_id, reason, /*ask_ras=*/true);
}

void WorkerSupervisor::StopAll(const std::string& reason) {
  std::vector<std::string> ids;
  for (auto& [id, test] : tests_) ids.push_back(id);
  // No RAS query: the agent is shutting down (its wait for the workers is
  // bounded) or has lost the coordinator (no report would carry it).
  for (const std::string& id : ids) StopOne(id, reason, /*ask_ras=*/false);
}

void WorkerSupervisor::StopOne(const std::string& test_id, const std::string& reason,
                               bool ask_ras) {
  auto it = tests_.find(test_id);
  if (it == tests_.end()) {
    // Nothing runs here for it (already reaped): confirmed, so that the
    // coordinator does not wait.
    reports_.WorkersStopped(test_id);
    return;
  }
  stop_.Begin(it->second, reason, ask_ras);
  MaybeFinish(test_id);
}

void WorkerSupervisor::OnExit(const std::string& test_id, int rank, const common::ExitInfo& exit) {
  auto it = tests_.find(test_id);
  if (it == tests_.end()) return;
  SupervisedTest& test = it->second;
  auto worker =
      std::find_if(test.workers.begin(), test.workers.end(),
                   [rank](const SupervisedWorker& w) { return w.assignment.rank() == rank; });
  if (worker != test.workers.end()) {
    worker->exited = true;
    spdlog::info("test={} rank={} node={}: pid {} {}", test_id, rank, config_.node_name, exit.pid,
                 exit.Describe());
    const bool unexpected = !test.stopping || DiedOfItsOwnDuringStop(*worker, exit);
    if (unexpected && !worker->finished && !worker->reported) {
      reports_.Failure(
          test_id, *worker, v1::WORKER_EVENT_KIND_EXITED, v1::FAILURE_KIND_WORKER_EXITED,
          absl::StrCat("worker process ", exit.pid, " ", exit.Describe(), " before finishing"),
          &exit);
      stop_.Begin(test, absl::StrCat("rank ", rank, " exited"), /*ask_ras=*/true);
    } else if (worker->finished && (exit.exit_code != 0 || exit.signal != 0)) {
      spdlog::warn("test={} rank={}: {} after finishing", test_id, rank, exit.Describe());
    }
  }
  MaybeFinish(test_id);
}

void WorkerSupervisor::MaybeFinish(const std::string& test_id) {
  auto it = tests_.find(test_id);
  if (it == tests_.end()) return;
  SupervisedTest& test = it->second;
  // The RAS reply is part of the evidence: waited for (bounded by its
  // backstop timer) even when every worker is already gone.
  if (test.ras_pending) return;
  if (std::any_of(test.workers.begin(), test.workers.end(),
                  [](const SupervisedWorker& worker) { return worker.alive(); })) {
    return;
  }
  executor_.Cancel(test.register_timer);
  executor_.Cancel(test.watchdog_timer);
  executor_.Cancel(test.kill_timer);
  spdlog::info("test={} node={}: every worker has exited", test_id, config_.node_name);
  v1::NodeTestEvidence evidence = evidence_.Collect(test);
  tests_.erase(it);
  TellRunningTests();
  reports_.WorkersStopped(test_id, std::move(evidence));
}

void WorkerSupervisor::TellRunningTests() const {
  if (environment_.running_tests_changed) environment_.running_tests_changed(RunningTests());
}

SupervisedWorker* WorkerSupervisor::FindWorker(const std::string& test_id, int rank,
                                               const std::string& token, absl::Status* error) {
  auto it = tests_.find(test_id);
  if (it != tests_.end()) {
    for (SupervisedWorker& worker : it->second.workers) {
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
  SupervisedWorker* worker =
      FindWorker(request.test_id(), request.rank(), request.worker_token(), &error);
  if (worker == nullptr) return error;
  worker->last_heartbeat = clock_.Now();
  if (!worker->registered) {
    worker->registered = true;
    // The pid this agent spawned, not request.pid(): the worker's own word
    // is not needed where the agent knows.
    reports_.Registered(request.test_id(), request.rank(), worker->child.pid);
  }
  return RegisterReplyFor(config_, tests_.at(request.test_id()).launch, worker->assignment);
}

absl::StatusOr<bool> WorkerSupervisor::Heartbeat(const v1::WorkerHeartbeatRequest& request) {
  auto it = tests_.find(request.test_id());
  if (it != tests_.end() && it->second.stopping) return true;
  absl::Status error;
  SupervisedWorker* worker =
      FindWorker(request.test_id(), request.rank(), request.worker_token(), &error);
  if (worker == nullptr) return error;
  worker->last_heartbeat = clock_.Now();
  return false;
}

absl::Status WorkerSupervisor::ReportEvent(const v1::ReportWorkerEventRequest& request) {
  const v1::WorkerEvent& event = request.event();
  absl::Status error;
  SupervisedWorker* worker =
      FindWorker(event.test_id(), event.rank(), request.worker_token(), &error);
  if (worker == nullptr) return error;
  worker->last_heartbeat = clock_.Now();
  switch (event.kind()) {
    case v1::WORKER_EVENT_KIND_JOINING:
    case v1::WORKER_EVENT_KIND_JOINED:
    case v1::WORKER_EVENT_KIND_SIZE_DONE:
    case v1::WORKER_EVENT_KIND_PROGRESS:
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
  reports_.WorkerEvent(event, *worker);
  return absl::OkStatus();
}

absl::Status WorkerSupervisor::CheckToken(const std::string& token,
                                          const std::string& test_id) const {
  auto it = tests_.find(test_id);
  if (it != tests_.end() && !token.empty()) {
    for (const SupervisedWorker& worker : it->second.workers) {
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
    for (const SupervisedWorker& worker : test.workers) live += worker.alive();
  }
  return live;
}

}  // namespace eb::agent
