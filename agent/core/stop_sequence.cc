#include "agent/core/stop_sequence.h"

#include <signal.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace eb::agent {
namespace v1 = ebnccl::v1;

StopSequence::StopSequence(const AgentCoreConfig& config, RasQuery ras, common::Clock& clock,
                           common::Executor& executor, common::ProcessLauncher& launcher,
                           SupervisedTests& tests, WorkerReports& reports,
                           std::function<void(const std::string& test_id)> on_ras_done)
    : config_(config),
      ras_(std::move(ras)),
      clock_(clock),
      executor_(executor),
      launcher_(launcher),
      tests_(tests),
      reports_(reports),
      on_ras_done_(std::move(on_ras_done)) {}

void StopSequence::Begin(SupervisedTest& test, const std::string& reason, bool ask_ras) {
  if (test.stopping) return;
  test.stopping = true;
  spdlog::info("test={} node={}: stopping workers: {}", test.id(), config_.node_name, reason);
  // Registration and heartbeats are no longer awaited.
  executor_.Cancel(test.register_timer);
  executor_.Cancel(test.watchdog_timer);
  ReportSilentWorkers(test);
  if (ask_ras && ShouldQueryRas(test)) {
    QueryRas(test);
    return;
  }
  SignalWorkers(test);
}

void StopSequence::ReportSilentWorkers(SupervisedTest& test) {
  const absl::Time now = clock_.Now();
  // Three heartbeats, but never under half the hang timeout (up to 3 s): at
  // 250 ms a worker's heartbeat 0.75 s old on a loaded host is no sign of a
  // hang, and a worker_hung said here would come before the stop's own
  // cause (a stall of the path) in the verdict.
  const absl::Duration stale =
      std::max(3 * config_.worker_heartbeat_period,
               std::min(config_.worker_hang_timeout / 2, absl::Seconds(3)));
  for (SupervisedWorker& worker : test.workers) {
    if (worker.registered && !worker.finished && !worker.exited && !worker.reported &&
        now - worker.last_heartbeat > stale) {
      reports_.Failure(
          test.id(), worker, v1::WORKER_EVENT_KIND_FAILED, v1::FAILURE_KIND_WORKER_HUNG,
          absl::StrCat("had stopped heartbeating ", FormatSeconds(now - worker.last_heartbeat),
                       " before the test was stopped"));
    }
  }
}

bool StopSequence::ShouldQueryRas(const SupervisedTest& test) const {
  if (test.ras_port == 0 || !ras_.query) return false;
  for (const SupervisedWorker& worker : test.workers) {
    if (worker.alive() && worker.registered && !worker.finished) return true;
  }
  return false;
}

void StopSequence::QueryRas(SupervisedTest& test) {
  // NCCL's RAS lives in the workers: asked before they are signalled.
  const std::string test_id = test.id();
  spdlog::info("test={} node={}: querying NCCL RAS on port {} before the stop", test_id,
               config_.node_name, test.ras_port);
  test.ras_pending = true;
  std::weak_ptr<int> alive = alive_;
  ras_.query(test.ras_port, [this, alive, test_id](NcclRasExchange exchange) {
    executor_.Post([this, alive, test_id, exchange = std::move(exchange)]() mutable {
      if (alive.lock()) OnRasDone(test_id, std::move(exchange));
    });
  });
  // The query ends within its deadline; this only guards the stop against
  // a query that never calls back.
  test.ras_timer = executor_.PostAfter(ras_.limits.deadline + absl::Seconds(1),
                                       [this, test_id] { OnRasDone(test_id, std::nullopt); });
}

void StopSequence::OnRasDone(const std::string& test_id, std::optional<NcclRasExchange> exchange) {
  auto it = tests_.find(test_id);
  if (it == tests_.end() || !it->second.ras_pending) return;
  SupervisedTest& test = it->second;
  test.ras_pending = false;
  executor_.Cancel(test.ras_timer);
  if (exchange.has_value()) {
    test.ras = SummarizeNcclRas(config_.node_name, test.ras_port, *exchange, ras_.limits);
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
  SignalWorkers(test);
  on_ras_done_(test_id);
}

void StopSequence::SignalWorkers(SupervisedTest& test) {
  for (SupervisedWorker& worker : test.workers) {
    if (worker.kill_after_ras) Kill(worker);
  }
  for (SupervisedWorker& worker : test.workers) {
    if (!worker.alive()) continue;
    worker.sent_sigterm = true;
    (void)launcher_.SignalGroup(worker.child, SIGTERM);
    // A stopped (SIGSTOP) process only acts on SIGTERM once continued.
    (void)launcher_.SignalGroup(worker.child, SIGCONT);
  }
  test.kill_timer = executor_.PostAfter(config_.worker_grace,
                                        [this, test_id = test.id()] { OnGraceOver(test_id); });
}

void StopSequence::OnGraceOver(const std::string& test_id) {
  auto it = tests_.find(test_id);
  if (it == tests_.end()) return;
  for (SupervisedWorker& worker : it->second.workers) {
    if (!worker.alive()) continue;
    spdlog::warn("test={} rank={}: still alive {} after SIGTERM; sending SIGKILL", test_id,
                 worker.assignment.rank(), FormatSeconds(config_.worker_grace));
    Kill(worker);
  }
}

void StopSequence::Kill(SupervisedWorker& worker) {
  if (!worker.alive()) return;
  worker.sent_sigkill = true;
  (void)launcher_.SignalGroup(worker.child, SIGKILL);
}

bool DiedOfItsOwnDuringStop(const SupervisedWorker& worker, const common::ExitInfo& exit) {
  if (exit.signal == SIGKILL) return !worker.sent_sigkill;
  // An exit with a code is how a worker obeys SIGTERM, or how it ends after
  // its peer failed: both follow from the stop or from what caused it.
  if (exit.signal == 0) return false;
  return !worker.sent_sigterm;
}

}  // namespace eb::agent
