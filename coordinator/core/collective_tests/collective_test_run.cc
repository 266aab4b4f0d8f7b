#include "coordinator/core/collective_tests/collective_test_run.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/spec/limits.h"
#include "coordinator/core/collective_tests/run_evidence.h"
#include "coordinator/core/collective_tests/run_failures.h"
#include "coordinator/core/collective_tests/run_verdict.h"
#include "coordinator/history/history_store.h"
#include "coordinator/validation/rails.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

namespace {

int64_t UnixMillis(absl::Time t) { return absl::ToUnixMillis(t); }

// The report a test starts with: who runs it, where, and with what.
v1::TestReport NewReport(std::string test_id, v1::TestSpec spec,
                         std::vector<v1::RankAssignment> ranks,
                         std::vector<v1::NodeInventory> inventories) {
  v1::TestReport report;
  report.set_schema_version(1);
  report.set_test_id(std::move(test_id));
  report.set_transport(spec.transport());
  *report.mutable_spec() = std::move(spec);
  for (v1::RankAssignment& rank : ranks) *report.add_ranks() = std::move(rank);
  for (v1::NodeInventory& inventory : inventories) {
    *report.add_node_inventories() = std::move(inventory);
  }
  return report;
}

}  // namespace

TestRun::TestRun(std::string test_id, v1::TestSpec spec, std::vector<v1::RankAssignment> ranks,
                 std::vector<PlannedSize> sweep, std::vector<v1::NodeInventory> inventories,
                 TestRunTimeouts timeouts, common::Clock& clock, common::Executor& executor,
                 TestRunHost& host)
    : report_(
          NewReport(std::move(test_id), std::move(spec), std::move(ranks), std::move(inventories))),
      timeouts_(timeouts),
      clock_(clock),
      executor_(executor),
      host_(host),
      nodes_(report_.ranks()),
      results_(std::move(sweep), static_cast<int>(nodes_.names().size()), report_,
               [this](const v1::SizeResult& row) {
                 v1::RunTestEvent event;
                 *event.mutable_size_result() = row;
                 host_.Publish(id(), event);
               }),
      progress_(report_.ranks_size(), static_cast<int>(results_.sweep().size())),
      deadlines_(report_, progress_, results_.sweep(), timeouts_),
      size_watch_(report_, results_.sweep(), timeouts_.step),
      stall_watch_(report_, results_.sweep(), timeouts_.stall) {}

TestRun::~TestRun() {
  executor_.Cancel(phase_timer_);
  executor_.Cancel(size_timer_);
  executor_.Cancel(stall_timer_);
  executor_.Cancel(total_timer_);
  executor_.Cancel(stop_timer_);
}

void TestRun::Start() {
  report_.set_state(v1::TEST_STATE_LAUNCHING);
  report_.set_start_time_unix_ms(UnixMillis(clock_.Now()));
  v1::RunTestEvent accepted;
  *accepted.mutable_accepted() = report_;
  host_.Publish(id(), accepted);

  // What every node's launch shares, built once. The spec goes without its
  // node list: agents and workers never need it (a worker derives the node
  // count from its assignment), and N launches of N names each made a
  // 1,024-node test cost ~1 million name copies (issue 15).
  v1::LaunchTest common;
  common.set_test_id(id());
  *common.mutable_spec() = report_.spec();
  common.mutable_spec()->clear_node_names();
  common.set_register_timeout_ms(absl::ToInt64Milliseconds(timeouts_.launch));
  // The workers' own deadlines are backstops: the coordinator's deadlines
  // fire first so that the verdict names the ranks that were missing.
  common.set_init_timeout_ms(
      absl::ToInt64Milliseconds(timeouts_.launch + timeouts_.init + absl::Seconds(2)));
  common.set_op_timeout_ms(absl::ToInt64Milliseconds(timeouts_.step + absl::Seconds(2)));
  // The one list every worker runs: workers never compute a sweep. Every
  // collective of the spec runs it.
  for (const int64_t size : SweepBytes(results_.sweep().steps)) common.add_sizes_bytes(size);
  for (const std::string& node : nodes_.names()) {
    v1::CoordinatorMessage message;
    v1::LaunchTest& launch = *message.mutable_launch();
    launch = common;
    for (const int rank : nodes_.RanksOf(node)) *launch.add_ranks() = report_.ranks(rank);
    host_.SendToNode(node, message);
  }
  spdlog::info("test={} launched: {} ranks on nodes {}", id(), report_.ranks_size(),
               absl::StrJoin(nodes_.names(), ","));
  ArmPhaseTimer(timeouts_.launch);
  total_check_.Arm(clock_.Now() + timeouts_.total);
  total_timer_ = executor_.PostAfter(timeouts_.total, [this] { OnTotalDeadline(); });
}

void TestRun::OnWorkerEvent(const std::string& node, const v1::WorkerEvent& event) {
  if (finished_) return;
  const int rank = event.rank();
  if (rank < 0 || rank >= report_.ranks_size() || report_.ranks(rank).node_name() != node) {
    WarnRefusedEvent(
        node, "foreign rank",
        absl::StrCat("sent an event for rank ", rank, ", which it does not run; ignored"));
    return;
  }
  switch (event.kind()) {
    case v1::WORKER_EVENT_KIND_REGISTERED:
      KeepPid(rank, node, event.pid());
      Raise(rank, RunProgress::kRegistered);
      break;
    case v1::WORKER_EVENT_KIND_JOINING:
      Raise(rank, RunProgress::kJoining);
      break;
    case v1::WORKER_EVENT_KIND_JOINED:
      Raise(rank, RunProgress::kJoined);
      break;
    case v1::WORKER_EVENT_KIND_SIZE_DONE:
      OnSizeDone(rank, node, event.size_result());
      break;
    case v1::WORKER_EVENT_KIND_PROGRESS:
      OnProgress(rank, event.progress());
      break;
    case v1::WORKER_EVENT_KIND_FINISHED:
      OnRankFinished(rank);
      break;
    case v1::WORKER_EVENT_KIND_FAILED:
    case v1::WORKER_EVENT_KIND_EXITED:
      OnRankFailed(rank, event.failure());
      break;
    default:
      WarnRefusedEvent(
          node, "unknown kind",
          absl::StrCat("rank ", rank, ": unknown event kind ", static_cast<int>(event.kind())));
  }
  UpdatePhase();
}

void TestRun::KeepPid(int rank, const std::string& node, int32_t pid) {
  // Only shown (the "#  Rank .. Pid" line, devices[].pid): a pid outside
  // what Linux hands out is not kept, and the first one stays (a repeated
  // event cannot rename the process).
  v1::RankAssignment& assignment = *report_.mutable_ranks(rank);
  if (assignment.worker_pid() != 0 || pid == 0) return;
  if (pid < 0 || pid > spec::kMaxWorkerPid) {
    WarnRefusedEvent(
        node, "pid",
        absl::StrCat("rank ", rank, ": worker pid ", pid, " is out of range; not kept"));
    return;
  }
  assignment.set_worker_pid(pid);
}

void TestRun::OnSizeDone(int rank, const std::string& node, const v1::RankSizeResult& result) {
  // A rank off the sweep stays off it: one failure says so.
  if (results_.closed(rank)) return;
  if (absl::Status counted = results_.Add(rank, node, result); !counted.ok()) {
    AddFailure(
        RankFailure(report_, rank, v1::FAILURE_KIND_INTERNAL, std::string(counted.message())));
    return;
  }
  Raise(rank, RunProgress::StepLevel(results_.steps_done(rank)));
}

void TestRun::OnRankFinished(int rank) {
  if (results_.closed(rank)) return;
  if (absl::Status complete = results_.CheckComplete(rank); !complete.ok()) {
    AddFailure(
        RankFailure(report_, rank, v1::FAILURE_KIND_INTERNAL, std::string(complete.message())));
    return;
  }
  Raise(rank, progress_.FinishedLevel());
}

void TestRun::OnRankFailed(int rank, const v1::Failure& failure) {
  results_.Close(rank);
  // A rank fails once, and its agent may report the exit too: beyond that,
  // a repeated FAILED grew the report by a failure (and its text) each time,
  // as fast as the node's budget allowed, until the test ended.
  if (++rank_failures_[rank] > spec::kMaxFailuresPerRank) {
    WarnRefusedEvent(report_.ranks(rank).node_name(), "repeated failure",
                     absl::StrCat("rank ", rank, " reported more than ", spec::kMaxFailuresPerRank,
                                  " failures; the later ones are not kept"));
    return;
  }
  v1::Failure attributed = RankFailure(report_, rank, failure.kind(), failure.message());
  attributed.set_exit_code(failure.exit_code());
  attributed.set_signal(failure.signal());
  AddFailure(std::move(attributed));
}

void TestRun::OnNodeEvidence(const std::string& node, const v1::NodeTestEvidence& evidence) {
  if (finished_ || nodes_.stopped(node) || !nodes_.Has(node)) return;
  MergeNodeEvidence(node, evidence, report_);
}

void TestRun::OnWorkersStopped(const std::string& node) {
  if (finished_) return;
  nodes_.MarkStopped(node);
  // A node whose ranks all finished may well be done before the others.
  if (!stopping_ && !NodeFinished(node)) {
    // Every worker of the node is gone although the test is not over: the
    // agent reported each exit before this, so this is only a backstop.
    AddFailure(UnattributedFailure(
        v1::FAILURE_KIND_WORKER_EXITED,
        absl::StrCat("every worker on node ", node, " exited before the test finished"), node));
  }
  MaybeFinalize();
}

void TestRun::OnNodeLost(const std::string& node, const std::string& reason) {
  if (finished_ || !nodes_.Has(node)) return;
  nodes_.MarkLost(node);
  // Every collective involves every rank, so a node whose own ranks all
  // finished took part in every operation: losing it afterwards is harmless.
  if (!NodeFinished(node)) {
    const std::vector<int>& ranks = nodes_.RanksOf(node);
    // Its agent cannot confirm that the workers stopped: say so rather than
    // imply it (they exit by themselves once the agent stops answering their
    // heartbeats, agent/worker/worker_runtime.h AgentSilenceLimit).
    AddFailure(UnattributedFailure(
        v1::FAILURE_KIND_NODE_LOST,
        absl::StrCat("node ", node, " was lost while running ",
                     ranks.size() == 1 ? "rank " : "ranks ", absl::StrJoin(ranks, ", "), ": ",
                     reason,
                     "; its workers could not be confirmed stopped (each exits by itself within "
                     "about 5 s of losing its agent)"),
        node));
  }
  MaybeFinalize();
}

void TestRun::Cancel(const std::string& reason) {
  // Once stopping, the verdict is known and the workers are being stopped
  // already: a late cancel (Ctrl-C during the stop) must not rewrite it.
  if (finished_ || cancelled_ || stopping_) return;
  cancelled_ = true;
  cancel_reason_ = reason;
  spdlog::info("test={} cancelled: {}", id(), reason);
  BeginStopping();
}

void TestRun::Interrupt(const std::string& reason) {
  if (finished_) return;
  executor_.Cancel(phase_timer_);
  executor_.Cancel(stall_timer_);
  executor_.Cancel(total_timer_);
  executor_.Cancel(stop_timer_);
  for (const std::string& node : nodes_.StillRunning()) {
    SendStop(node, absl::StrCat("interrupted: ", reason));
  }
  // Not a verdict on the hardware: the nodes it ran on are not blamed.
  MarkReportInterrupted(report_, reason, UnixMillis(clock_.Now()));
  spdlog::warn("test={} {}", id(), report_.summary());
  PublishFinal();
}

void TestRun::Raise(int rank, int level) {
  const int slowest_before = progress_.SlowestLevel();
  if (!progress_.Raise(rank, level)) return;
  if (stopping_ || report_.state() != v1::TEST_STATE_RUNNING) return;
  // In the sweep, any progress restarts the step deadline: a step that no
  // rank finishes within step_timeout names the ranks that are behind.
  ArmPhaseTimer(timeouts_.step);
  stall_watch_.MovedOn(rank, clock_.Now());
  if (progress_.SlowestLevel() == slowest_before) return;
  EnterStep();
  // Every rank entered the next size: stop now if the sizes measured so far
  // predict that it misses its deadline anyway.
  const int step = RunProgress::StepAt(progress_.SlowestLevel());
  if (step <= 0) return;
  if (std::optional<v1::Failure> miss = deadlines_.PredictedToMiss(static_cast<size_t>(step))) {
    AddFailure(*std::move(miss));
  }
}

void TestRun::EnterStep() {
  const int step = RunProgress::StepAt(progress_.SlowestLevel());
  executor_.Cancel(size_timer_);
  if (step < 0 || step >= static_cast<int>(results_.sweep().size())) return;
  size_watch_.EnterStep(step, clock_.Now());
  stall_watch_.EnterStep(step, clock_.Now());
  executor_.Cancel(stall_timer_);
  stall_timer_ = 0;
  ArmStallTimer();  // Gloo's first call is judged too (stall_watch.h)
  size_check_.Arm(clock_.Now() + timeouts_.step);
  size_timer_ = executor_.PostAfter(timeouts_.step, [this, step] { OnSizeDeadline(step); });
}

void TestRun::OnProgress(int rank, const v1::IterationProgress& progress) {
  if (stopping_ || report_.state() != v1::TEST_STATE_RUNNING) return;
  if (progress.step() != RunProgress::StepAt(progress_.level(rank))) return;
  const bool news = size_watch_.Record(rank, progress);
  stall_watch_.Heard(rank, progress, clock_.Now(), news);
  if (news) {
    // A call completed: the data path moves, so the hang deadline restarts.
    if (progress_.level(rank) == progress_.SlowestLevel()) ArmPhaseTimer(timeouts_.step);
    if (std::optional<v1::Failure> miss = size_watch_.PredictedOverrun(clock_.Now())) {
      AddFailure(*std::move(miss));
      return;
    }
  }
  ArmStallTimer();
}

void TestRun::ArmStallTimer() {
  const std::optional<absl::Time> due = stall_watch_.Deadline(size_watch_.Summarize());
  // One timer, moved only earlier: a report per rank several times a
  // second costs no timer; a timer that fires early looks again.
  if (!due.has_value() || (stall_timer_ != 0 && *due >= stall_due_)) return;
  executor_.Cancel(stall_timer_);
  stall_due_ = *due;
  stall_check_.Arm(*due);
  const int step = RunProgress::StepAt(progress_.SlowestLevel());
  stall_timer_ = executor_.PostAfter(std::max(*due - clock_.Now(), absl::ZeroDuration()),
                                     [this, step] { OnStallDeadline(step); });
}

void TestRun::OnStallDeadline(int step) {
  stall_timer_ = 0;
  if (stopping_ || finished_ || RunProgress::StepAt(progress_.SlowestLevel()) != step) return;
  if (std::optional<absl::Duration> again = stall_check_.Defer(clock_.Now())) {
    stall_timer_ = executor_.PostAfter(*again, [this, step] { OnStallDeadline(step); });
    return;
  }
  const SizeProgressWatch::Summary position = size_watch_.Summarize();
  const std::optional<absl::Time> due = stall_watch_.Deadline(position);
  if (!due.has_value()) return;  // a warm-up call in flight: the next report re-arms
  if (clock_.Now() < *due) {
    ArmStallTimer();
    return;
  }
  for (v1::Failure& failure : deadlines_.Stalled(clock_.Now() - stall_watch_.last_news(),
                                                 stall_watch_.Explain(position))) {
    AddFailure(std::move(failure));
  }
}

void TestRun::OnSizeDeadline(int step) {
  if (stopping_ || finished_ || RunProgress::StepAt(progress_.SlowestLevel()) != step) return;
  if (std::optional<absl::Duration> again = size_check_.Defer(clock_.Now())) {
    size_timer_ = executor_.PostAfter(*again, [this, step] { OnSizeDeadline(step); });
    return;
  }
  // Calls completed but the size did not finish: a measurement. Without
  // any, the hang deadline (armed at the same time) names what is stuck.
  if (std::optional<v1::Failure> overran = size_watch_.Overran(clock_.Now())) {
    AddFailure(*std::move(overran));
  }
}

void TestRun::UpdatePhase() {
  if (stopping_ || finished_) return;
  if (progress_.AllFinished()) {
    BeginStopping();
    return;
  }
  const v1::TestState target = progress_.Phase();
  if (target == report_.state()) return;
  SetState(target);
  ArmPhaseTimer(target == v1::TEST_STATE_RUNNING ? timeouts_.step : timeouts_.init);
  if (target == v1::TEST_STATE_RUNNING) EnterStep();
}

void TestRun::SetState(v1::TestState state) {
  if (report_.state() == state) return;
  report_.set_state(state);
  spdlog::info("test={} state {}", id(), v1::TestState_Name(state));
  v1::RunTestEvent event;
  event.set_state_changed(state);
  host_.Publish(id(), event);
}

void TestRun::ArmPhaseTimer(absl::Duration timeout) {
  executor_.Cancel(phase_timer_);
  phase_check_.Arm(clock_.Now() + timeout);
  phase_timer_ = executor_.PostAfter(timeout, [this] { OnPhaseDeadline(); });
}

void TestRun::OnPhaseDeadline() {
  if (stopping_ || finished_) return;
  // Run late, the coordinator was not running: the ranks' progress of that
  // time may be queued behind this timer.
  if (std::optional<absl::Duration> again = phase_check_.Defer(clock_.Now())) {
    phase_timer_ = executor_.PostAfter(*again, [this] { OnPhaseDeadline(); });
    return;
  }
  // Every rank blamed is named, the first as the primary cause.
  for (v1::Failure& failure : deadlines_.PhaseExpired()) AddFailure(std::move(failure));
}

void TestRun::OnTotalDeadline() {
  if (stopping_ || finished_) return;
  if (std::optional<absl::Duration> again = total_check_.Defer(clock_.Now())) {
    total_timer_ = executor_.PostAfter(*again, [this] { OnTotalDeadline(); });
    return;
  }
  AddFailure(deadlines_.TotalExpired());
}

void TestRun::WarnRefusedEvent(const std::string& node, const std::string& reason,
                               const std::string& line) {
  const std::optional<std::string> admitted =
      RateLimitedLine(&refused_events_log_, absl::StrCat(node, " ", reason), clock_.Now(), line);
  if (admitted) spdlog::warn("test={} node={}: {}", id(), node, *admitted);
}

void TestRun::AddFailure(v1::Failure failure) {
  spdlog::warn("test={} rank={} node={}: {}", id(), failure.rank(), failure.node_name(),
               failure.message());
  *report_.add_failures() = std::move(failure);
  if (!stopping_) BeginStopping();
}

void TestRun::BeginStopping() {
  stopping_ = true;
  executor_.Cancel(phase_timer_);
  executor_.Cancel(size_timer_);
  executor_.Cancel(stall_timer_);
  executor_.Cancel(total_timer_);
  SetState(v1::TEST_STATE_STOPPING);
  if (report_.failures_size() > 0 || cancelled_) {
    const std::string reason =
        cancelled_ ? absl::StrCat("cancelled: ", cancel_reason_) : report_.failures(0).message();
    for (const std::string& node : nodes_.StillRunning()) SendStop(node, reason);
  }
  stop_timer_ = executor_.PostAfter(timeouts_.stop, [this] { OnStopDeadline(); });
  MaybeFinalize();
}

void TestRun::OnStopDeadline() {
  if (finished_) return;
  const std::vector<std::string> silent = nodes_.StillRunning();
  spdlog::warn("test={}: agents on {} did not confirm that the workers stopped within {}", id(),
               absl::StrJoin(silent, ","), DeadlineText(timeouts_.stop));
  for (const std::string& node : silent) SendStop(node, "workers did not exit after the test");
  Finalize();
}

void TestRun::MaybeFinalize() {
  if (!stopping_ || finished_) return;
  if (nodes_.AllDone()) Finalize();
}

bool TestRun::NodeFinished(const std::string& node) const {
  for (const int rank : nodes_.RanksOf(node)) {
    if (!progress_.finished(rank)) return false;
  }
  return true;
}

void TestRun::SendStop(const std::string& node, const std::string& reason) {
  v1::CoordinatorMessage message;
  message.mutable_stop()->set_test_id(id());
  message.mutable_stop()->set_reason(reason);
  host_.SendToNode(node, message);
}

void TestRun::Finalize() {
  executor_.Cancel(stop_timer_);
  WriteFooters(report_);
  // The culprit follows the failure that ended the test: its cause first.
  OrderFailuresByCause(report_);
  StoreStraggler(report_);
  validation::JudgeRails(report_);
  // A test cancelled, or failed already, is not judged on what it measured.
  if (!cancelled_ && report_.failures_size() == 0) RunChecks(results_.ranks(), report_);
  OrderFailuresByCause(report_);
  Verdict verdict =
      cancelled_ ? Verdict{v1::TEST_STATE_CANCELLED, absl::StrCat("cancelled: ", cancel_reason_)}
                 : Decide(report_);
  AttachEvidence(report_, verdict.summary);
  report_.set_summary(verdict.summary);
  report_.set_state(verdict.state);
  report_.set_end_time_unix_ms(UnixMillis(clock_.Now()));
  spdlog::info("test={} {}: {}", id(), v1::TestState_Name(verdict.state), verdict.summary);
  PublishFinal();
}

void TestRun::PublishFinal() {
  finished_ = true;
  v1::RunTestEvent event;
  *event.mutable_finished() = report_;
  host_.Publish(id(), event);
  host_.Finished(id());
}

}  // namespace eb::coordinator
