#include "coordinator/coordinator_server.h"

#include <malloc.h>
#include <stdlib.h>

#include <filesystem>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/notification.h"
#include "common/io/bounded_file.h"
#include "common/metrics/standard_metrics.h"
#include "common/process/posix_process_launcher.h"
#include "common/rpc/server_reflection.h"
#include "common/rpc/tls.h"
#include "common/spec/wire_names.h"
#include "coordinator/config_file.h"
#include "coordinator/history/in_memory_audit_history.h"
#include "coordinator/history/in_memory_history.h"
#include "coordinator/history/in_memory_validation_history.h"
#include "coordinator/history/sqlite_audit_history.h"
#include "coordinator/history/sqlite_history.h"
#include "coordinator/history/sqlite_validation_history.h"
#include "coordinator/history/write_behind_history.h"
#include "coordinator/scheduler/slurm/slurm_output.h"
#include "coordinator/scheduler_io/kubernetes_backend.h"
#include "coordinator/scheduler_io/slurm_backend.h"
#include "coordinator/scheduler_verdicts.h"
#include "coordinator/sentinel_wiring.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {

namespace {

absl::StatusOr<std::unique_ptr<TestHistory>> OpenHistory(const CoordinatorConfig& config) {
  std::unique_ptr<TestHistory> history;
  if (config.history_path.empty()) {
    history = std::make_unique<InMemoryTestHistory>(config.history_limit);
  } else {
    // Outside systemd (StateDirectory= creates it there), create the
    // directory rather than make every first start fail.
    std::error_code error;
    const std::filesystem::path parent = std::filesystem::path(config.history_path).parent_path();
    if (!parent.empty() && !std::filesystem::exists(parent, error)) {
      std::filesystem::create_directories(parent, error);
      if (error) {
        return absl::FailedPreconditionError(absl::StrCat(
            "--history-path: cannot create ", parent.string(), " for ", config.history_path, ": ",
            error.message(), " (pass --history-path '' to keep the history in memory)"));
      }
      std::filesystem::permissions(parent, std::filesystem::perms(0750), error);
    }
    SqliteTestHistoryOptions options;
    options.max_tests = config.history_limit;
    absl::StatusOr<std::unique_ptr<SqliteTestHistory>> opened =
        SqliteTestHistory::Open(config.history_path, options);
    if (!opened.ok()) return opened.status();
    // Saves leave the event loop at once; a writer thread records them
    // (write_behind_history.h: 512 verdicts at once held the loop ~0.8 s).
    history = std::make_unique<WriteBehindTestHistory>(*std::move(opened));
  }
  // Whatever is recorded as unfinished belonged to a previous coordinator
  // process: no agent still runs it for us.
  absl::StatusOr<int> interrupted =
      history->MarkInterrupted("the coordinator stopped while the test ran",
                               absl::ToUnixMillis(common::RealClock::Get().Now()));
  if (!interrupted.ok()) return interrupted.status();
  if (*interrupted > 0) {
    spdlog::warn(
        "history {}: {} test(s) left running by the previous coordinator are now "
        "interrupted",
        config.history_path.empty() ? "(memory)" : config.history_path, *interrupted);
  }
  return history;
}

// The baselines file's text, or "" (verdicts then rest on the fleet median;
// a request may still carry its own).
// The baselines file into `config`: its text and path, or, when it cannot
// be read, why (so that no report names it as used).
void ReadBaselines(const std::string& path, ValidationManagerConfig& config) {
  if (path.empty()) return;
  absl::StatusOr<std::string> text = common::ReadBoundedFile(path, common::FileKind::kBaselines);
  if (!text.ok()) {
    spdlog::warn("{}: validations judge by the fleet median only",
                 std::string(text.status().message()));
    config.baselines_error = std::string(text.status().message());
    return;
  }
  config.baselines_toml = *std::move(text);
  config.baselines_origin = path;
}

// The scheduler integration's audit (issue 30): each entry is appended on
// the loop, which owns the history, and Record returns once it is there:
// an intent must be on record before its action is carried out.
class SchedulerAudit final : public scheduler_io::ActionAudit {
 public:
  SchedulerAudit(common::Executor& loop, AuditHistory& history, const std::string& scheduler)
      : loop_(loop), history_(history), identity_(absl::StrCat("ebnccl-scheduler/", scheduler)) {}

  absl::Status Record(const std::string& method, const std::string& target,
                      const absl::Status& outcome, const std::string& message) override {
    ebnccl::v1::AuditEntry entry;
    entry.set_time_unix_ms(absl::ToUnixMillis(common::RealClock::Get().Now()));
    entry.set_identity(identity_);
    entry.set_role("coordinator");
    entry.set_method(method);
    entry.set_target(Abbreviate(target, 512));
    entry.set_outcome(absl::StatusCodeToString(outcome.code()));
    entry.set_message(
        Abbreviate(outcome.ok() ? message : absl::StrCat(message, ": ", outcome.message()), 1024));
    spdlog::info("audit: {} {} {} -> {}: {}", identity_, method, target, entry.outcome(),
                 entry.message());
    auto done = std::make_shared<absl::Notification>();
    auto appended = std::make_shared<absl::Status>();
    loop_.Post([history = &history_, entry = std::move(entry), done, appended] {
      *appended = history->Append(entry);
      done->Notify();
    });
    if (!done->WaitForNotificationWithTimeout(absl::Seconds(5))) {
      return absl::DeadlineExceededError("the audit log did not record the entry within 5s");
    }
    return *appended;
  }

 private:
  common::Executor& loop_;
  AuditHistory& history_;
  const std::string identity_;
};

}  // namespace

void CoordinatorServer::SchedulerAfterValidation(const ebnccl::v1::ValidationReport& report) {
  scheduler_->Release(report.validation_id(),
                      absl::AsciiStrToLower(absl::StripPrefix(
                          ebnccl::v1::ValidationState_Name(report.state()), "VALIDATION_STATE_")));
  if (!RecordsVerdicts(report.state())) return;
  scheduler_io::ReconcileInput input;
  input.trigger = absl::StrCat("validation ", report.validation_id());
  input.validation_id = report.validation_id();
  for (const NodeRecord* record : registry_->All()) input.ebnccl_nodes.push_back(record->name);
  input.verdicts = SchedulerVerdicts(*validation_history_, &report);
  scheduler_->AfterValidation(std::move(input));
}

absl::StatusOr<std::unique_ptr<scheduler::SchedulerBackend>> CoordinatorServer::MakeBackend() {
  const SchedulerConfig& config = config_.scheduler;
  if (config.kind == "kubernetes") {
    scheduler_io::KubernetesBackendConfig k8s;
    k8s.kubectl = config.kubectl;
    k8s.kubeconfig = config.kubeconfig;
    k8s.server = config.kubernetes_server;
    k8s.placeholder.name_space = config.kubernetes_namespace;
    k8s.placeholder.priority_class = config.kubernetes_priority_class;
    k8s.placeholder.gpu_resource = config.kubernetes_gpu_resource;
    k8s.command_timeout = config.command_timeout;
    // kubectl's HOME (its cache) and the request bodies: a directory of ours.
    std::string scratch =
        (std::filesystem::temp_directory_path() / "ebnccl-kubectl-XXXXXX").string();
    if (mkdtemp(scratch.data()) == nullptr) {
      return absl::UnavailableError(
          absl::StrCat("kubernetes: cannot create a scratch directory under ",
                       std::filesystem::temp_directory_path().string()));
    }
    k8s.scratch_dir = scratch;
    return std::make_unique<scheduler_io::KubernetesBackend>(*runner_, std::move(k8s));
  }
  scheduler_io::SlurmBackendConfig slurm;
  slurm.bin_dir = config.slurm_bin_dir;
  slurm.slurm_conf = config.slurm_conf;
  slurm.partition = config.partition;
  slurm.command_timeout = config.command_timeout;
  // The sentinel's probe jobs: preemptible by the site's QOS.
  slurm.probe_partition = config_.sentinel.partition;
  slurm.probe_qos = config_.sentinel.qos;
  return std::make_unique<scheduler_io::SlurmBackend>(*runner_, std::move(slurm));
}

absl::Status CoordinatorServer::StartScheduler() {
  const SchedulerConfig& config = config_.scheduler;
  if (config.kind == "none") return absl::OkStatus();
  if (config.kind != "slurm" && config.kind != "kubernetes") {
    return absl::InvalidArgumentError(
        absl::StrCat("[scheduler] kind: \"", config.kind, "\" is not none, slurm or kubernetes"));
  }
  auto launcher = common::PosixProcessLauncher::Create();
  if (!launcher.ok()) return launcher.status();
  launcher_ = *std::move(launcher);
  runner_ = std::make_unique<scheduler_io::LauncherCommandRunner>(*launcher_);
  absl::StatusOr<std::unique_ptr<scheduler::SchedulerBackend>> backend = MakeBackend();
  if (!backend.ok()) return backend.status();
  scheduler::SchedulerPolicy policy;
  policy.confirmations_to_drain = config.confirmations_to_drain;
  policy.passes_to_resume = config.passes_to_resume;
  policy.flap_window = config.flap_window;
  policy.max_drained_share = config.max_drained_percent / 100.0;
  policy.max_drained_share_per_group = config.max_drained_percent / 100.0;
  policy.dry_run = config.dry_run;
  scheduler_audit_ = std::make_unique<SchedulerAudit>(loop_, *audit_history_, config.kind);
  scheduler_ = std::make_unique<scheduler_io::SchedulerService>(
      loop_, common::RealClock::Get(), *std::move(backend), *scheduler_audit_, policy);
  control_service_->set_scheduler(scheduler_.get());
  scheduler_->set_default_borrow(config_.default_validation_timeout);
  // Jobs a previous run held: no validation runs yet, so none is ours now.
  scheduler_->GiveBackStale();
  // Then what a previous run decided and may not have carried out (issue
  // 30: "no drain or resume is lost or repeated"), from the recorded
  // verdicts; the pass runs after the give-back, on the service's thread.
  std::vector<std::string> registered;
  for (const NodeRecord* record : registry_->All()) registered.push_back(record->name);
  scheduler_->AfterValidation(
      scheduler_io::StartUpInput(SchedulerVerdicts(*validation_history_, nullptr), registered));
  // The node listing's column: read on the service's thread, shown as read.
  scheduler_->RefreshEvery(absl::Seconds(30));
  spdlog::info(
      "scheduler: {} ({}, {} confirmation(s) drain, {} pass(es) resume, at most {}% "
      "drained{})",
      config.kind,
      config.kind == "slurm"
          ? absl::StrCat("partition ", config.partition.empty() ? "all" : config.partition,
                         ", SLURM_CONF ", config.slurm_conf.empty() ? "default" : config.slurm_conf)
          : absl::StrCat("kubectl ", config.kubectl, ", namespace ", config.kubernetes_namespace,
                         ", PriorityClass ", config.kubernetes_priority_class),
      config.confirmations_to_drain, config.passes_to_resume, config.max_drained_percent,
      config.dry_run ? ", DRY RUN" : "");
  if (config_.sentinel.enabled) StartSentinel();
  return absl::OkStatus();
}

void CoordinatorServer::StartSentinel() {
  const SentinelConfig& config = config_.sentinel;
  sentinel::SentinelSettings settings;
  settings.policy.period = config.period;
  settings.policy.refresh_after = config.refresh_after;
  settings.policy.max_idle_share = config.max_idle_percent / 100.0;
  settings.policy.probe_duration = config.probe_duration;
  settings.policy.pair_unknown_nodes = config.pair_unknown_nodes;
  probe_scheduler_ = std::make_unique<ServiceProbeScheduler>(*scheduler_);
  probe_runner_ = std::make_unique<ValidationProbeRunner>(*validations_, config.probe_duration);
  sentinel_ = std::make_unique<sentinel::Sentinel>(
      loop_, common::RealClock::Get(), *probe_scheduler_, *probe_runner_,
      [this] {
        sentinel::FleetFacts facts;
        for (const NodeRecord* record : registry_->All()) {
          facts.ebnccl_nodes.push_back(record->name);
          const int gpus = record->inventory.gpus_size();
          if (gpus > 0) facts.node_rails[record->name] = gpus;
        }
        facts.verdicts = SchedulerVerdicts(*validation_history_, nullptr);
        return facts;
      },
      settings);
  loop_.Post([sentinel = sentinel_.get()] { sentinel->Start(); });
  spdlog::info("sentinel: every node probed within {}, at most {}% of the idle nodes held",
               absl::FormatDuration(config.period), config.max_idle_percent);
}

CoordinatorServer::CoordinatorServer(const CoordinatorConfig& config,
                                     std::unique_ptr<TestHistory> history,
                                     std::unique_ptr<ValidationHistory> validation_history,
                                     std::unique_ptr<AuditHistory> audit_history)
    : config_(config),
      loop_("eb-coord-loop"),
      rendezvous_(loop_),
      logs_(loop_, absl::Seconds(10)),
      history_(std::move(history)),
      validation_history_(std::move(validation_history)),
      audit_history_(std::move(audit_history)) {
  registry_ = std::make_unique<NodeRegistry>(common::RealClock::Get(), loop_, config_, nullptr);
  tests_ = std::make_unique<TestManager>(common::RealClock::Get(), loop_, *registry_, rendezvous_,
                                         config_, *history_);
  registry_->set_on_lost(
      [manager = tests_.get()](const std::string& node, const std::string& reason) {
        manager->OnNodeLost(node, reason);
      });
  metrics_ = std::make_unique<CoordinatorMetrics>(metrics_registry_, common::RealClock::Get());
  tests_->set_on_finished([this, metrics = metrics_.get()](const ebnccl::v1::TestReport& report) {
    metrics->OnTestFinished(report);
    // When the last running test is over, give its memory back to the
    // system: glibc keeps what a large test freed (a 2,048-rank test left
    // the RSS ~30 MB above its idle level for good, issue 15). Later than
    // the run's own destruction (a posted turn); once for many tests that
    // end together; never while a test runs (the trim walks the heap on
    // the event loop).
    if (trim_pending_) return;
    trim_pending_ = true;
    loop_.PostAfter(absl::Milliseconds(100), [this] {
      trim_pending_ = false;
      if (tests_->RunningCount() == 0) malloc_trim(0);
    });
  });
  ValidationManagerConfig validation_config;
  validation_config.default_timeout = config_.default_validation_timeout;
  ReadBaselines(config_.baselines_path, validation_config);
  validation_config.fabric = config_.topology.loaded;
  validations_ =
      std::make_unique<ValidationManager>(common::RealClock::Get(), loop_, *registry_, *tests_,
                                          *validation_history_, std::move(validation_config));
  validation_metrics_ = std::make_unique<ValidationMetrics>(metrics_registry_);
  // The scheduler (when configured, StartScheduler) acts on the verdicts
  // after the metrics have counted them.
  validations_->set_on_finished([this](const ebnccl::v1::ValidationReport& report) {
    validation_metrics_->OnValidationFinished(report);
    if (scheduler_) SchedulerAfterValidation(report);
    if (sentinel_)
      sentinel_->OnValidationFinished(report.validation_id(), spec::WireName(report.state()));
  });
  audit_ = std::make_unique<AuditLog>(loop_, common::RealClock::Get(), *audit_history_);
  if (config_.tls.enabled()) {
    handshake_audit_ = std::make_unique<HandshakeAudit>(*audit_, common::RealClock::Get());
  }
  // The roles were checked when the config was read.
  absl::StatusOr<std::map<std::string, Role>> roles = ParseRoleMap(config_.tls_roles);
  authz_ = std::make_unique<Authorizer>(
      config_.tls.enabled(), roles.ok() ? *std::move(roles) : std::map<std::string, Role>(),
      audit_.get());
  const bool insecure = !config_.tls.enabled() && !IsLoopbackHost(config_.listen_address.substr(
                                                      0, config_.listen_address.rfind(':')));
  // A node answering another's log request (P2-4e): refused in
  // LogRequests, audited here at powers of two of the count.
  logs_.set_refusal_hook(
      [this](const std::string& sender, const std::string& asked, uint64_t refused) {
        Caller caller;
        caller.identity = sender;
        caller.role = Role::kAgent;
        audit_->Record(
            caller, "LogContent", asked,
            absl::PermissionDeniedError(absl::StrCat("answered a log request sent to ", asked, " (",
                                                     refused, " refused so far)")));
      });
  control_service_ = std::make_unique<ControlService>(loop_, *tests_, *registry_, logs_,
                                                      *validations_, *authz_, *audit_, insecure);
  control_service_->set_topology(config_.topology);
  agent_service_ = std::make_unique<AgentServiceImpl>(loop_, common::RealClock::Get(), *registry_,
                                                      *tests_, rendezvous_, logs_, config_, *authz_,
                                                      *audit_, config_.session_budget);
}

absl::StatusOr<std::unique_ptr<CoordinatorServer>> CoordinatorServer::Start(
    const CoordinatorConfig& config) {
  absl::StatusOr<std::unique_ptr<TestHistory>> history = OpenHistory(config);
  if (!history.ok()) return history.status();
  // Validations live in the same file, after the tests' checks of it.
  std::unique_ptr<ValidationHistory> validation_history;
  if (config.history_path.empty()) {
    validation_history = std::make_unique<InMemoryValidationHistory>();
  } else {
    absl::StatusOr<std::unique_ptr<SqliteValidationHistory>> opened =
        SqliteValidationHistory::Open(config.history_path);
    if (!opened.ok()) return opened.status();
    validation_history = *std::move(opened);
  }
  std::unique_ptr<AuditHistory> audit_history;
  if (config.history_path.empty()) {
    audit_history = std::make_unique<InMemoryAuditHistory>();
  } else {
    absl::StatusOr<std::unique_ptr<SqliteAuditHistory>> opened =
        SqliteAuditHistory::Open(config.history_path);
    if (!opened.ok()) return opened.status();
    audit_history = *std::move(opened);
  }
  if (absl::Status files = common::CheckTlsFiles(config.tls); !files.ok()) return files;
  absl::StatusOr<int> interrupted = MarkValidationsInterrupted(
      *validation_history, "the coordinator stopped while the validation ran",
      absl::ToUnixMillis(common::RealClock::Get().Now()));
  if (!interrupted.ok()) return interrupted.status();
  if (*interrupted > 0) {
    spdlog::warn("{} validation(s) left running by the previous coordinator are now interrupted",
                 *interrupted);
  }
  std::unique_ptr<CoordinatorServer> coordinator(new CoordinatorServer(
      config, *std::move(history), std::move(validation_history), std::move(audit_history)));
  // Before the first call can come in: it may be a validation.
  if (absl::Status scheduler = coordinator->StartScheduler(); !scheduler.ok()) return scheduler;
  common::RpcServerOptions options;
  options.listen_address = config.listen_address;
  options.tls = config.tls;
  options.services = {coordinator->control_service_.get(), coordinator->agent_service_.get()};
  // grpcurl can list and describe the coordinator's services.
  common::EnableServerReflection();
  auto server = common::RpcServer::Start(options);
  if (!server.ok()) return server.status();
  coordinator->server_ = *std::move(server);
  coordinator->loop_.Post([registry = coordinator->registry_.get()] { registry->Start(); });

  CoordinatorServer* self = coordinator.get();
  std::string status = absl::StrCat("serving on port ", self->server_->port());
  if (!config.metrics_listen.empty()) {
    common::MetricsHttpServerOptions metrics_options;
    metrics_options.listen_address = config.metrics_listen;
    // Gauges read executor-owned state: refresh them on the loop per scrape.
    metrics_options.refresh = common::RefreshOnExecutor(self->loop_, [self] {
      self->metrics_->Update(*self->registry_, *self->tests_);
      self->validation_metrics_->Update(self->validations_->LastVerdicts(),
                                        self->validations_->RunningCount());
    });
    common::AddStandardMetrics(self->metrics_registry_, "coordinator");
    auto metrics_server =
        common::MetricsHttpServer::Start(self->metrics_registry_, std::move(metrics_options));
    if (!metrics_server.ok()) return metrics_server.status();
    self->metrics_server_ = *std::move(metrics_server);
    absl::StrAppend(&status, "; metrics on port ", self->metrics_server_->port());
  }
  // Pings only while the loop runs its probes: a wedged loop gets the
  // service restarted.
  self->watchdog_ = std::make_unique<common::WatchdogPinger>(self->notifier_, self->loop_,
                                                             config.watchdog_timeout);
  self->watchdog_->Start();
  if (absl::Status notified = self->notifier_.NotifyReady(status); !notified.ok()) {
    spdlog::warn("systemd: {}", notified.ToString());
  }
  return coordinator;
}

CoordinatorServer::~CoordinatorServer() { Shutdown(); }

void CoordinatorServer::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  (void)notifier_.NotifyStopping("shutting down");
  if (watchdog_) watchdog_->Stop();
  // The sentinel lives on the loop: gone there, before the service its
  // ports use (a probe left running is interrupted below; its job is
  // ended at the next start, GiveBackStale).
  if (sentinel_) {
    absl::Notification gone;
    loop_.Post([this, &gone] {
      sentinel_.reset();
      gone.Notify();
    });
    gone.WaitForNotificationWithTimeout(absl::Seconds(5));
  }
  // Its thread may be waiting on the loop (an audit entry): stopped while
  // the loop runs.
  scheduler_.reset();
  // Before the loop stops: its scrapes post refreshes onto the loop.
  if (metrics_server_) metrics_server_->Stop();
  // Running tests end as interrupted before the agents' streams close:
  // otherwise the closing streams would read as lost nodes and blame
  // healthy hardware (systemctl restart sends SIGTERM mid-test).
  absl::Notification interrupted;
  loop_.Post([this, &interrupted] {
    if (validations_) validations_->InterruptAll("the coordinator was stopped");
    if (tests_) tests_->InterruptAll("the coordinator was stopped while the test ran");
    interrupted.Notify();
  });
  interrupted.WaitForNotificationWithTimeout(absl::Seconds(5));
  // Calls in flight finish or are cancelled; their reactors post to the
  // loop, which is still running.
  if (server_) server_->Shutdown(absl::Seconds(2));
  // Drain the loop on its own thread before destroying what it uses.
  absl::Notification drained;
  loop_.Post([&drained] { drained.Notify(); });
  drained.WaitForNotificationWithTimeout(absl::Seconds(5));
  loop_.Stop();
}

}  // namespace eb::coordinator
