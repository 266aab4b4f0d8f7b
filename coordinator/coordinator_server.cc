#include "coordinator/coordinator_server.h"

#include <malloc.h>

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/io/bounded_file.h"
#include "common/metrics/standard_metrics.h"
#include "common/rpc/server_reflection.h"
#include "common/rpc/tls.h"
#include "coordinator/config_file.h"
#include "coordinator/history/in_memory_audit_history.h"
#include "coordinator/history/in_memory_history.h"
#include "coordinator/history/in_memory_validation_history.h"
#include "coordinator/history/sqlite_audit_history.h"
#include "coordinator/history/sqlite_history.h"
#include "coordinator/history/sqlite_validation_history.h"
#include "coordinator/history/write_behind_history.h"
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
std::string ReadBaselines(const std::string& path) {
  if (path.empty()) return "";
  absl::StatusOr<std::string> text = common::ReadBoundedFile(path, common::FileKind::kBaselines);
  if (!text.ok()) {
    spdlog::warn("{}: validations judge by the fleet median only",
                 std::string(text.status().message()));
    return "";
  }
  return *std::move(text);
}

}  // namespace

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
  validation_config.baselines_toml = ReadBaselines(config_.baselines_path);
  validation_config.baselines_origin = config_.baselines_path;
  validations_ =
      std::make_unique<ValidationManager>(common::RealClock::Get(), loop_, *registry_, *tests_,
                                          *validation_history_, std::move(validation_config));
  audit_ = std::make_unique<AuditLog>(loop_, common::RealClock::Get(), *audit_history_);
  // The roles were checked when the config was read.
  absl::StatusOr<std::map<std::string, Role>> roles = ParseRoleMap(config_.tls_roles);
  authz_ = std::make_unique<Authorizer>(
      config_.tls.enabled(), roles.ok() ? *std::move(roles) : std::map<std::string, Role>(),
      audit_.get());
  const bool insecure = !config_.tls.enabled() && !IsLoopbackHost(config_.listen_address.substr(
                                                      0, config_.listen_address.rfind(':')));
  control_service_ = std::make_unique<ControlService>(loop_, *tests_, *registry_, logs_,
                                                      *validations_, *authz_, *audit_, insecure);
  agent_service_ = std::make_unique<AgentServiceImpl>(loop_, *registry_, *tests_, rendezvous_,
                                                      logs_, config_, *authz_, *audit_);
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
    metrics_options.refresh = common::RefreshOnExecutor(
        self->loop_, [self] { self->metrics_->Update(*self->registry_, *self->tests_); });
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
