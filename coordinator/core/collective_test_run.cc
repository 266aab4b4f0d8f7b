#include "coordinator/core/collective_test_run.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/spec/names.h"
#include "common/spec/proto_enums.h"
#include "coordinator/core/result_aggregator.h"
#include "coordinator/core/run_evidence.h"
#include "coordinator/history/history_store.h"
#include "coordinator/validation/rails.h"
#include "coordinator/validation/straggler.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

namespace {

int64_t UnixMillis(absl::Time t) { return absl::ToUnixMillis(t); }

std::string Seconds(absl::Duration d) { return absl::StrFormat("%.3gs", absl::ToDoubleSeconds(d)); }

// Lower sorts first: the failure most likely to be the root cause leads.
int Priority(v1::FailureKind kind) {
  switch (kind) {
    case v1::FAILURE_KIND_NODE_LOST:
      return 0;
    case v1::FAILURE_KIND_WORKER_EXITED:
    case v1::FAILURE_KIND_WORKER_HUNG:
      return 1;
    case v1::FAILURE_KIND_LAUNCH_FAILED:
      return 2;
    case v1::FAILURE_KIND_WORKER_REGISTRATION_TIMEOUT:
    case v1::FAILURE_KIND_TIMEOUT:
    case v1::FAILURE_KIND_TOO_SLOW:
      return 3;
    case v1::FAILURE_KIND_COMMUNICATION_ERROR:
      return 4;
    case v1::FAILURE_KIND_WRONG_DATA:
      return 5;
    case v1::FAILURE_KIND_BELOW_MIN_BUSBW:
      return 6;
    default:
      return 7;
  }
}

}  // namespace

TestRun::TestRun(std::string test_id, v1::TestSpec spec, std::vector<v1::RankAssignment> ranks,
                 std::vector<PlannedSize> sweep, std::vector<v1::NodeInventory> inventories,
                 TestRunTimeouts timeouts, common::Clock& clock, common::Executor& executor,
                 TestRunHost& host)
    : sweep_(std::move(sweep)),
      timeouts_(timeouts),
      clock_(clock),
      executor_(executor),
      host_(host),
      progress_(ranks.size()) {
  report_.set_schema_version(1);
  report_.set_test_id(std::move(test_id));
  report_.set_transport(spec.transport());
  *report_.mutable_spec() = std::move(spec);
  for (v1::RankAssignment& rank : ranks) {
    if (nodes_.empty() || nodes_.back() != rank.node_name()) {
      nodes_.push_back(rank.node_name());
    }
    if (node_index_.emplace(rank.node_name(), static_cast<int>(node_ranks_.size())).second) {
      node_ranks_.emplace_back();
    }
    node_ranks_[node_index_.at(rank.node_name())].push_back(rank.rank());
    *report_.add_ranks() = std::move(rank);
  }
  for (v1::NodeInventory& inventory : inventories)
    *report_.add_node_inventories() = std::move(inventory);
  if (report_.spec().split_rails() && !nodes_.empty()) {
    // Ranks are contiguous per node with one count on every node (the
    // placement), so rail r is slot r of every node.
    const int per_node = report_.ranks_size() / static_cast<int>(nodes_.size());
    // The full sweep over more ranks was planned already, so this one over
    // fewer cannot fail; an empty rail sweep would fail the test as soon as
    // a rank reports a rail size.
    rail_sweep_ = PlanSweep(report_.spec(), static_cast<int>(nodes_.size()))
                      .value_or(std::vector<PlannedSize>{});
    rail_rows_emitted_.assign(static_cast<size_t>(per_node), 0);
    rail_reports_.assign(static_cast<size_t>(per_node), std::vector<int>(rail_sweep_.size(), 0));
    for (int rail = 0; rail < per_node; ++rail) {
      v1::RailResult& result = *report_.add_rails();
      result.set_rail(rail);
      for (const v1::RankAssignment& a : report_.ranks()) {
        if (a.local_rank() != rail) continue;
        v1::RailMember& member = *result.add_members();
        member.set_rank(a.rank());
        member.set_node_name(a.node_name());
        member.set_device_index(a.device_index());
        member.set_gpu_pci_bus_id(a.gpu_pci_bus_id());
        if (a.node_index() >= 0 && a.node_index() < report_.node_inventories_size()) {
          member.set_hca(NearestHca(report_.node_inventories(a.node_index()), a.device_index()));
        }
      }
    }
  }
  ranks_at_level_.assign(static_cast<size_t>(FinishedLevel()) + 1, 0);
  ranks_at_level_[kLaunched] = static_cast<int>(progress_.size());
  min_level_ = progress_.empty() ? FinishedLevel() : kLaunched;
  size_reports_.assign(sweep_.size(), 0);
}

TestRun::~TestRun() {
  executor_.Cancel(phase_timer_);
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
  // The one list every worker runs: workers never compute a sweep.
  // One collective's sizes: every collective of the spec runs this list.
  for (const PlannedSize& size : sweep_) {
    if (size.collective != sweep_.front().collective) break;
    common.add_sizes_bytes(size.sweep_bytes);
  }
  for (const std::string& node : nodes_) {
    v1::CoordinatorMessage message;
    v1::LaunchTest& launch = *message.mutable_launch();
    launch = common;
    for (const int rank : node_ranks_[node_index_.at(node)]) {
      *launch.add_ranks() = report_.ranks(rank);
    }
    host_.SendToNode(node, message);
  }
  spdlog::info("test={} launched: {} ranks on nodes {}", id(), progress_.size(),
               absl::StrJoin(nodes_, ","));
  ArmPhaseTimer(timeouts_.launch);
  total_timer_ = executor_.PostAfter(timeouts_.total, [this] { OnTotalDeadline(); });
}

void TestRun::OnWorkerEvent(const std::string& node, const v1::WorkerEvent& event) {
  if (finished_) return;
  const int rank = event.rank();
  if (rank < 0 || rank >= static_cast<int>(progress_.size()) ||
      report_.ranks(rank).node_name() != node) {
    spdlog::warn("test={} node={} sent an event for rank {}, which it does not run; ignored", id(),
                 node, rank);
    return;
  }
  RankProgress& progress = progress_[rank];
  switch (event.kind()) {
    case v1::WORKER_EVENT_KIND_REGISTERED:
      Raise(rank, kRegistered);
      break;
    case v1::WORKER_EVENT_KIND_JOINING:
      Raise(rank, kJoining);
      break;
    case v1::WORKER_EVENT_KIND_JOINED:
      Raise(rank, kJoined);
      break;
    case v1::WORKER_EVENT_KIND_SIZE_DONE: {
      // A rank off the sweep stays off it: one failure says so.
      if (progress.failed) break;
      if (event.size_result().rail()) {
        OnRailSize(rank, node, event.size_result());
        break;
      }
      if (progress.sizes.size() >= sweep_.size()) {
        AddFailure(
            RankFailure(rank, v1::FAILURE_KIND_INTERNAL, "reported more sizes than the sweep has"));
        break;
      }
      const v1::RankSizeResult& result = event.size_result();
      const size_t index = progress.sizes.size();
      const PlannedSize& expected = sweep_[index];
      // A worker older than RankSizeResult.collective runs only the spec's.
      const v1::Collective reported = result.collective() != v1::COLLECTIVE_UNSPECIFIED
                                          ? result.collective()
                                          : report_.spec().collective();
      if (reported != expected.collective) {
        progress.failed = true;
        AddFailure(RankFailure(
            rank, v1::FAILURE_KIND_INTERNAL,
            absl::StrCat("reported ", spec::DisplayName(reported), " where step ", index + 1,
                         " of ", sweep_.size(), " is ", spec::DisplayName(expected.collective),
                         ": are the coordinator and the agent and eb-worker on node ", node,
                         " the same ebnccl version?")));
        break;
      }
      if (result.size_bytes() != expected.size_bytes || result.count() != expected.count) {
        // Never average it into a row with the other ranks' numbers.
        progress.failed = true;
        AddFailure(RankFailure(
            rank, v1::FAILURE_KIND_INTERNAL,
            absl::StrCat("reported size ", result.size_bytes(), " B (count ", result.count(),
                         ") where the sweep's size ", index + 1, " of ", sweep_.size(), " is ",
                         expected.size_bytes, " B (count ", expected.count, ", swept as ",
                         expected.sweep_bytes,
                         " B): the worker ran another sweep than the coordinator sent; are the "
                         "coordinator and the agent and eb-worker on node ",
                         node, " the same ebnccl version?")));
        break;
      }
      progress.wrong_elements +=
          result.out_of_place().wrong_elements() + result.in_place().wrong_elements();
      progress.sizes.push_back(result);
      ++size_reports_[index];
      Raise(rank, kJoined + static_cast<int>(progress.sizes.size()));
      EmitReadyRows();
      break;
    }
    case v1::WORKER_EVENT_KIND_FINISHED:
      if (progress.failed) break;
      if (progress.sizes.size() != sweep_.size() ||
          progress.rail_sizes.size() != rail_sweep_.size()) {
        AddFailure(RankFailure(
            rank, v1::FAILURE_KIND_INTERNAL,
            absl::StrCat("finished after ", progress.sizes.size(), " of ", sweep_.size(), " sizes",
                         rail_sweep_.empty()
                             ? ""
                             : absl::StrCat(" and ", progress.rail_sizes.size(), " of ",
                                            rail_sweep_.size(), " rail sizes"))));
        break;
      }
      progress.finished = true;
      Raise(rank, FinishedLevel());
      break;
    case v1::WORKER_EVENT_KIND_FAILED:
    case v1::WORKER_EVENT_KIND_EXITED: {
      progress.failed = true;
      const v1::Failure& failure = event.failure();
      const std::string& detail = failure.message();
      v1::Failure attributed = RankFailure(rank, failure.kind(), detail);
      attributed.set_exit_code(failure.exit_code());
      attributed.set_signal(failure.signal());
      AddFailure(std::move(attributed));
      break;
    }
    default:
      spdlog::warn("test={} rank={} node={}: unknown event kind {}", id(), rank, node,
                   static_cast<int>(event.kind()));
  }
  UpdatePhase();
}

void TestRun::OnRailSize(int rank, const std::string& node, const v1::RankSizeResult& result) {
  RankProgress& progress = progress_[rank];
  const size_t index = progress.rail_sizes.size();
  std::string error;
  if (rail_sweep_.empty()) {
    error = "reported a rail size, but the test does not split rails";
  } else if (progress.sizes.size() != sweep_.size()) {
    error = absl::StrCat("reported a rail size after ", progress.sizes.size(), " of ",
                         sweep_.size(), " sizes of the full sweep");
  } else if (index >= rail_sweep_.size()) {
    error = "reported more rail sizes than the sweep has";
  } else if (result.size_bytes() != rail_sweep_[index].size_bytes ||
             result.count() != rail_sweep_[index].count) {
    error = absl::StrCat("reported rail size ", result.size_bytes(), " B (count ", result.count(),
                         ") where the rail sweep's size ", index + 1, " of ", rail_sweep_.size(),
                         " is ", rail_sweep_[index].size_bytes, " B (count ",
                         rail_sweep_[index].count, "); are the coordinator and the eb-worker on ",
                         node, " the same ebnccl version?");
  }
  if (!error.empty()) {
    progress.failed = true;
    AddFailure(RankFailure(rank, v1::FAILURE_KIND_INTERNAL, error));
    return;
  }
  progress.wrong_elements +=
      result.out_of_place().wrong_elements() + result.in_place().wrong_elements();
  progress.rail_sizes.push_back(result);
  const size_t rail = static_cast<size_t>(report_.ranks(rank).local_rank());
  if (rail < rail_reports_.size()) ++rail_reports_[rail][index];
  Raise(rank, kJoined + static_cast<int>(progress.sizes.size() + progress.rail_sizes.size()));
  EmitReadyRailRows();
}

std::string TestRun::StepName(int level) const {
  const size_t index = static_cast<size_t>(level - kJoined);
  if (index < sweep_.size()) {
    // Several collectives: say whose size (one collective reads as before).
    const bool several = sweep_.front().collective != sweep_.back().collective;
    return absl::StrCat(several ? spec::DisplayName(sweep_[index].collective) : "",
                        several ? " " : "", "size ", sweep_[index].sweep_bytes);
  }
  if (index < sweep_.size() + rail_sweep_.size()) {
    return absl::StrCat("rail size ", rail_sweep_[index - sweep_.size()].sweep_bytes);
  }
  return "finishing";
}

void TestRun::OnNodeEvidence(const std::string& node, const v1::NodeTestEvidence& evidence) {
  if (finished_ || stopped_nodes_.contains(node)) return;
  if (std::find(nodes_.begin(), nodes_.end(), node) == nodes_.end()) return;
  MergeNodeEvidence(node, evidence, report_);
}

void TestRun::OnWorkersStopped(const std::string& node) {
  if (finished_) return;
  if (stopped_nodes_.insert(node).second && !lost_nodes_.contains(node)) NodeDone(node);
  // A node whose ranks all finished may well be done before the others.
  if (!stopping_ && !NodeFinished(node)) {
    // Every worker of the node is gone although the test is not over: the
    // agent reported each exit before this, so this is only a backstop.
    AddFailure([&] {
      v1::Failure failure;
      failure.set_kind(v1::FAILURE_KIND_WORKER_EXITED);
      failure.set_rank(-1);
      failure.set_node_name(node);
      failure.set_local_rank(-1);
      failure.set_device_index(-1);
      failure.set_message(
          absl::StrCat("every worker on node ", node, " exited before the test finished"));
      return failure;
    }());
  }
  MaybeFinalize();
}

void TestRun::OnNodeLost(const std::string& node, const std::string& reason) {
  if (finished_ || !node_index_.contains(node)) return;
  if (lost_nodes_.insert(node).second && !stopped_nodes_.contains(node)) NodeDone(node);
  // Every collective involves every rank, so a node whose own ranks all
  // finished took part in every operation: losing it afterwards is harmless.
  if (!NodeFinished(node)) {
    const std::vector<int>& ranks = node_ranks_[node_index_.at(node)];
    v1::Failure failure;
    failure.set_kind(v1::FAILURE_KIND_NODE_LOST);
    failure.set_rank(-1);
    failure.set_node_name(node);
    failure.set_local_rank(-1);
    failure.set_device_index(-1);
    // Its agent cannot confirm that the workers stopped: say so rather than
    // imply it (they exit by themselves once the agent stops answering their
    // heartbeats, agent/worker/worker_runtime.h AgentSilenceLimit).
    failure.set_message(absl::StrCat(
        "node ", node, " was lost while running ", ranks.size() == 1 ? "rank " : "ranks ",
        absl::StrJoin(ranks, ", "), ": ", reason,
        "; its workers could not be confirmed stopped (each exits by itself within about 5 s of "
        "losing its agent)"));
    AddFailure(std::move(failure));
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
  if (!stopping_) BeginStopping();
}

void TestRun::Interrupt(const std::string& reason) {
  if (finished_) return;
  executor_.Cancel(phase_timer_);
  executor_.Cancel(total_timer_);
  executor_.Cancel(stop_timer_);
  for (const std::string& node : NodesStillRunning()) {
    SendStop(node, absl::StrCat("interrupted: ", reason));
  }
  // Not a verdict on the hardware: the nodes it ran on are not blamed.
  MarkReportInterrupted(report_, reason, UnixMillis(clock_.Now()));
  finished_ = true;
  spdlog::warn("test={} {}", id(), report_.summary());
  v1::RunTestEvent event;
  *event.mutable_finished() = report_;
  host_.Publish(id(), event);
  host_.Finished(id());
}

void TestRun::Raise(int rank, int level) {
  RankProgress& progress = progress_[rank];
  if (level <= progress.level) return;
  --ranks_at_level_[progress.level];
  ++ranks_at_level_[level];
  progress.level = level;
  // In the sweep, any progress restarts the step deadline: a step that no
  // rank finishes within step_timeout names the ranks that are behind.
  if (!stopping_ && report_.state() == v1::TEST_STATE_RUNNING) ArmPhaseTimer(timeouts_.step);
}

void TestRun::UpdatePhase() {
  if (stopping_ || finished_) return;
  // Levels only rise, so the minimum only moves up: amortized O(1).
  while (min_level_ < FinishedLevel() && ranks_at_level_[min_level_] == 0) ++min_level_;
  const int min_level = min_level_;
  if (min_level >= FinishedLevel()) {
    BeginStopping();
    return;
  }
  v1::TestState target = v1::TEST_STATE_LAUNCHING;
  if (min_level >= kJoined) {
    target = v1::TEST_STATE_RUNNING;
  } else if (min_level >= kRegistered) {
    target = v1::TEST_STATE_INITIALIZING;
  }
  if (target == report_.state()) return;
  SetState(target);
  ArmPhaseTimer(target == v1::TEST_STATE_RUNNING ? timeouts_.step : timeouts_.init);
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
  phase_timer_ = executor_.PostAfter(timeout, [this] { OnPhaseDeadline(); });
}

void TestRun::OnPhaseDeadline() {
  if (stopping_ || finished_) return;
  const v1::TestState state = report_.state();
  std::vector<v1::Failure> failures;
  if (state == v1::TEST_STATE_LAUNCHING) {
    for (int rank = 0; rank < static_cast<int>(progress_.size()); ++rank) {
      if (progress_[rank].level >= kRegistered) continue;
      failures.push_back(RankFailure(
          rank, v1::FAILURE_KIND_WORKER_REGISTRATION_TIMEOUT,
          absl::StrCat("did not start and register within ", Seconds(timeouts_.launch))));
    }
  } else if (state == v1::TEST_STATE_INITIALIZING) {
    // A communicator completes for all ranks or for none, so "not joined"
    // names everyone. The ranks that never reached the rendezvous are the
    // ones holding the others up; name only them when there are any.
    bool any_missing = false;
    for (const RankProgress& progress : progress_) any_missing |= progress.level < kJoining;
    for (int rank = 0; rank < static_cast<int>(progress_.size()); ++rank) {
      if (any_missing ? progress_[rank].level >= kJoining : progress_[rank].level >= kJoined) {
        continue;
      }
      failures.push_back(RankFailure(
          rank, v1::FAILURE_KIND_TIMEOUT,
          any_missing
              ? absl::StrCat("did not join the communicator within ", Seconds(timeouts_.init),
                             " (it never reached the rendezvous; the other ranks waited for it)")
              : absl::StrCat("started joining the communicator but did not complete within ",
                             Seconds(timeouts_.init))));
    }
  } else {
    int min_level = FinishedLevel();
    int max_level = kLaunched;
    for (const RankProgress& progress : progress_) {
      min_level = std::min(min_level, progress.level);
      max_level = std::max(max_level, progress.level);
    }
    const size_t stuck_index = static_cast<size_t>(min_level - kJoined);
    if (min_level == max_level && stuck_index < sweep_.size()) {
      // Every rank is inside the same size and none is behind another: no
      // rank is to blame. Either the size is too big for the fabric in the
      // step deadline (a measurement), or the data path stopped.
      AddFailure(StuckSizeFailure(stuck_index));
      return;
    }
    for (int rank = 0; rank < static_cast<int>(progress_.size()); ++rank) {
      if (progress_[rank].level != min_level) continue;
      const std::string where = StepName(min_level);
      failures.push_back(RankFailure(rank, v1::FAILURE_KIND_TIMEOUT,
                                     absl::StrCat("made no progress for ", Seconds(timeouts_.step),
                                                  " (stuck at ", where, ")")));
    }
  }
  // Every missing rank is named, the first as the primary cause.
  for (v1::Failure& failure : failures) AddFailure(std::move(failure));
}

v1::Failure TestRun::StuckSizeFailure(size_t index) const {
  const PlannedSize& stuck = sweep_[index];
  const v1::TestSpec& spec = report_.spec();
  v1::Failure failure;
  failure.set_rank(-1);
  failure.set_local_rank(-1);
  failure.set_device_index(-1);
  if (rows_emitted_ > 0) {
    // What the sizes measured so far predict for this one: its calls
    // (per variant: one untimed, the timed batch, the checks) at the rate
    // of the largest size measured, which is bandwidth-bound if any is.
    const v1::SizeResult& last = report_.results(static_cast<int>(rows_emitted_) - 1);
    const double last_us = (last.out_of_place().time_us() + last.in_place().time_us()) / 2;
    const double scale = static_cast<double>(stuck.size_bytes) /
                         static_cast<double>(std::max<int64_t>(1, last.size_bytes()));
    const int calls = 2 * (1 + spec.iterations() + spec.check_iterations());
    const absl::Duration needed = absl::Microseconds(last_us * scale * calls);
    // Half the deadline: the prediction ignores latency, so anything near
    // the deadline is as likely slow as stuck.
    if (needed * 2 >= timeouts_.step) {
      double busbw_sum = 0;
      for (const v1::SizeResult& row : report_.results()) {
        busbw_sum += (row.out_of_place().busbw_gbps() + row.in_place().busbw_gbps()) / 2;
      }
      failure.set_kind(v1::FAILURE_KIND_TOO_SLOW);
      failure.set_message(absl::StrFormat(
          "too slow: size %d B could not finish within the step deadline of %s (at the %.3f GB/s "
          "busbw measured at %d B it needs about %s); the sweep stopped there with %d of %d sizes "
          "measured, avg busbw so far %.3f GB/s",
          stuck.size_bytes, Seconds(timeouts_.step),
          (last.out_of_place().busbw_gbps() + last.in_place().busbw_gbps()) / 2, last.size_bytes(),
          Seconds(needed), rows_emitted_, sweep_.size(),
          busbw_sum / static_cast<double>(rows_emitted_)));
      return failure;
    }
  }
  failure.set_kind(v1::FAILURE_KIND_TIMEOUT);
  failure.set_message(absl::StrCat(
      "no rank made progress for ", Seconds(timeouts_.step), " (every rank stuck at size ",
      stuck.sweep_bytes,
      ", none behind another, so no rank is named: a data path or a peer stopped answering",
      rows_emitted_ > 0 ? ", although the sizes measured so far predicted it would finish" : "",
      ")"));
  return failure;
}

void TestRun::OnTotalDeadline() {
  if (stopping_ || finished_) return;
  v1::Failure failure;
  failure.set_kind(v1::FAILURE_KIND_TIMEOUT);
  failure.set_rank(-1);
  failure.set_local_rank(-1);
  failure.set_device_index(-1);
  failure.set_message(absl::StrCat("the test exceeded its deadline of ", Seconds(timeouts_.total),
                                   "; ", DescribeLaggards("behind")));
  AddFailure(std::move(failure));
}

void TestRun::EmitReadyRows() {
  // A row is ready when every rank reported its size: counted per size, so
  // that an event does not look at every rank (only the row's aggregation
  // does, once).
  while (rows_emitted_ < sweep_.size() &&
         size_reports_[rows_emitted_] == static_cast<int>(progress_.size())) {
    std::vector<const v1::RankSizeResult*> per_rank;
    per_rank.reserve(progress_.size());
    for (const RankProgress& progress : progress_) {
      per_rank.push_back(&progress.sizes[rows_emitted_]);
    }
    v1::SizeResult row = AggregateSize(report_.spec(), per_rank);
    *report_.add_results() = row;
    v1::RunTestEvent event;
    *event.mutable_size_result() = std::move(row);
    host_.Publish(id(), event);
    ++rows_emitted_;
  }
}

void TestRun::EmitReadyRailRows() {
  for (size_t rail = 0; rail < rail_rows_emitted_.size(); ++rail) {
    v1::RailResult& result = *report_.mutable_rails(static_cast<int>(rail));
    size_t& emitted = rail_rows_emitted_[rail];
    while (emitted < rail_sweep_.size() && rail_reports_[rail][emitted] == result.members_size()) {
      std::vector<const v1::RankSizeResult*> per_member;
      for (const v1::RailMember& member : result.members()) {
        const RankProgress& progress = progress_[member.rank()];
        if (progress.rail_sizes.size() <= emitted) break;
        per_member.push_back(&progress.rail_sizes[emitted]);
      }
      if (per_member.size() != static_cast<size_t>(result.members_size())) break;
      *result.add_results() = AggregateSize(report_.spec(), per_member);
      ++emitted;
    }
  }
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
  executor_.Cancel(total_timer_);
  SetState(v1::TEST_STATE_STOPPING);
  if (report_.failures_size() > 0 || cancelled_) {
    const std::string reason =
        cancelled_ ? absl::StrCat("cancelled: ", cancel_reason_) : report_.failures(0).message();
    for (const std::string& node : NodesStillRunning()) SendStop(node, reason);
  }
  stop_timer_ = executor_.PostAfter(timeouts_.stop, [this] { OnStopDeadline(); });
  MaybeFinalize();
}

void TestRun::OnStopDeadline() {
  if (finished_) return;
  const std::vector<std::string> silent = NodesStillRunning();
  spdlog::warn("test={}: agents on {} did not confirm that the workers stopped within {}", id(),
               absl::StrJoin(silent, ","), Seconds(timeouts_.stop));
  for (const std::string& node : silent) SendStop(node, "workers did not exit after the test");
  Finalize();
}

void TestRun::MaybeFinalize() {
  if (!stopping_ || finished_) return;
  if (nodes_done_ == node_index_.size()) Finalize();
}

void TestRun::NodeDone(const std::string& node) {
  if (node_index_.contains(node)) ++nodes_done_;
}

bool TestRun::NodeFinished(const std::string& node) const {
  auto it = node_index_.find(node);
  if (it == node_index_.end()) return true;
  for (const int rank : node_ranks_[it->second]) {
    if (!progress_[rank].finished) return false;
  }
  return true;
}

std::vector<std::string> TestRun::NodesStillRunning() const {
  std::vector<std::string> nodes;
  for (const std::string& node : nodes_) {
    if (!lost_nodes_.contains(node) && !stopped_nodes_.contains(node)) nodes.push_back(node);
  }
  return nodes;
}

void TestRun::SendStop(const std::string& node, const std::string& reason) {
  v1::CoordinatorMessage message;
  message.mutable_stop()->set_test_id(id());
  message.mutable_stop()->set_reason(reason);
  host_.SendToNode(node, message);
}

void TestRun::Finalize() {
  executor_.Cancel(stop_timer_);
  double busbw_sum = 0;
  int busbw_count = 0;
  int64_t wrong = 0;
  for (const v1::SizeResult& row : report_.results()) {
    for (const v1::VariantResult* variant : {&row.out_of_place(), &row.in_place()}) {
      busbw_sum += variant->busbw_gbps();
      ++busbw_count;
      wrong += variant->wrong_elements();
    }
  }
  // nccl-tests' footer: the mean over every size and both variants.
  report_.set_avg_busbw_gbps(busbw_count > 0 ? busbw_sum / busbw_count : 0.0);
  for (v1::RailResult& rail : *report_.mutable_rails()) {
    double sum = 0;
    int count = 0;
    for (const v1::SizeResult& row : rail.results()) {
      sum += row.out_of_place().busbw_gbps() + row.in_place().busbw_gbps();
      count += 2;
    }
    rail.set_avg_busbw_gbps(count > 0 ? sum / count : 0.0);
  }
  report_.set_wrong_elements(wrong);
  // Each collective's own footer, in run order: the verdict is the worst.
  for (const v1::Collective collective : SpecCollectives(report_.spec())) {
    v1::CollectiveSummary& footer = *report_.add_collective_summaries();
    footer.set_collective(collective);
    double sum = 0;
    for (const v1::SizeResult& row : report_.results()) {
      const v1::Collective row_collective = row.collective() != v1::COLLECTIVE_UNSPECIFIED
                                                ? row.collective()
                                                : report_.spec().collective();
      if (row_collective != collective) continue;
      footer.set_sizes(footer.sizes() + 1);
      sum += row.out_of_place().busbw_gbps() + row.in_place().busbw_gbps();
      footer.set_wrong_elements(footer.wrong_elements() + row.out_of_place().wrong_elements() +
                                row.in_place().wrong_elements());
    }
    footer.set_avg_busbw_gbps(footer.sizes() > 0 ? sum / (2.0 * footer.sizes()) : 0.0);
  }
  const bool several = report_.collective_summaries_size() > 1;
  // Once, here, so that every view (table, JSON, history) shows the same
  // straggler instead of each recomputing it.
  const validation::Attribution attribution = validation::AttributeStraggler(report_);
  if (attribution.slowest.has_value()) *report_.mutable_slowest_rank() = *attribution.slowest;
  if (attribution.arrivals.has_value()) *report_.mutable_arrivals() = *attribution.arrivals;
  validation::JudgeRails(report_);

  const v1::TestSpec& spec = report_.spec();
  if (!cancelled_ && report_.failures_size() == 0) {
    for (int rank = 0; rank < static_cast<int>(progress_.size()); ++rank) {
      if (progress_[rank].wrong_elements == 0) continue;
      std::string where;
      if (several) {
        // Which collectives found them on this rank.
        std::vector<std::string> names;
        for (const v1::RankSizeResult& size : progress_[rank].sizes) {
          if (size.out_of_place().wrong_elements() + size.in_place().wrong_elements() == 0) {
            continue;
          }
          const std::string name = spec::DisplayName(size.collective());
          if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
        }
        if (!names.empty()) where = absl::StrCat(" of ", absl::StrJoin(names, ", "));
      }
      *report_.add_failures() = RankFailure(
          rank, v1::FAILURE_KIND_WRONG_DATA,
          absl::StrCat(progress_[rank].wrong_elements, " wrong elements in the data check", where));
    }
    // nccl-tests checks each binary's own average; with several
    // collectives each is checked against --min-busbw and the test fails
    // with every one below it (one collective: exactly the old check).
    for (const v1::CollectiveSummary& footer : report_.collective_summaries()) {
      if (report_.failures_size() > 0 && !several) break;
      const double avg = several ? footer.avg_busbw_gbps() : report_.avg_busbw_gbps();
      if (spec.min_busbw_gbps() <= 0 || avg >= spec.min_busbw_gbps()) continue;
      if (several && footer.sizes() == 0) continue;
      v1::Failure failure;
      failure.set_kind(v1::FAILURE_KIND_BELOW_MIN_BUSBW);
      failure.set_rank(-1);
      failure.set_local_rank(-1);
      failure.set_device_index(-1);
      failure.set_message(
          absl::StrFormat("%saverage bus bandwidth %.3f GB/s is below --min-busbw %.3f GB/s",
                          several ? absl::StrCat(spec::DisplayName(footer.collective()), ": ") : "",
                          avg, spec.min_busbw_gbps()));
      *report_.add_failures() = std::move(failure);
    }
  }
  std::stable_sort(report_.mutable_failures()->begin(), report_.mutable_failures()->end(),
                   [](const v1::Failure& a, const v1::Failure& b) {
                     return Priority(a.kind()) < Priority(b.kind());
                   });

  v1::TestState state = v1::TEST_STATE_PASSED;
  std::string summary;
  if (cancelled_) {
    state = v1::TEST_STATE_CANCELLED;
    summary = absl::StrCat("cancelled: ", cancel_reason_);
  } else if (report_.failures_size() > 0) {
    const v1::Failure& primary = report_.failures(0);
    const bool timeout = primary.kind() == v1::FAILURE_KIND_TIMEOUT ||
                         primary.kind() == v1::FAILURE_KIND_WORKER_REGISTRATION_TIMEOUT;
    state = timeout ? v1::TEST_STATE_TIMED_OUT : v1::TEST_STATE_FAILED;
    summary = primary.rank() >= 0
                  ? absl::StrCat(DescribeRank(primary.rank()), ": ", primary.message())
                  : primary.message();
    if (report_.failures_size() > 1) {
      absl::StrAppend(&summary, " (", report_.failures_size() - 1, " more failure",
                      report_.failures_size() == 2 ? "" : "s", ")");
    }
  } else {
    // -c 0 skips the data check: say so rather than claim a verification.
    if (several) {
      std::vector<std::string> names, averages;
      for (const v1::CollectiveSummary& footer : report_.collective_summaries()) {
        names.emplace_back(spec::DisplayName(footer.collective()));
        averages.push_back(absl::StrFormat("%s %.3f GB/s", spec::DisplayName(footer.collective()),
                                           footer.avg_busbw_gbps()));
      }
      summary = absl::StrFormat(
          "%s over %d rank%s on %d node%s: %d collectives x %d sizes, avg busbw %s, %s",
          absl::StrJoin(names, ", "), progress_.size(), progress_.size() == 1 ? "" : "s",
          nodes_.size(), nodes_.size() == 1 ? "" : "s", names.size(),
          report_.collective_summaries(0).sizes(), absl::StrJoin(averages, ", "),
          spec.check_iterations() > 0 ? "data verified" : "data not checked (-c 0)");
    } else {
      summary = absl::StrFormat(
          "%s over %d rank%s on %d node%s: %d sizes, avg busbw %.3f GB/s, %s",
          spec::DisplayName(spec.collective()), progress_.size(), progress_.size() == 1 ? "" : "s",
          nodes_.size(), nodes_.size() == 1 ? "" : "s", report_.results_size(),
          report_.avg_busbw_gbps(),
          spec.check_iterations() > 0 ? "data verified" : "data not checked (-c 0)");
    }
  }
  if (const std::string note = FinishEvidence(report_); !note.empty()) {
    absl::StrAppend(&summary, "; ", note);
  }
  report_.set_summary(summary);
  report_.set_state(state);
  report_.set_end_time_unix_ms(UnixMillis(clock_.Now()));
  finished_ = true;
  spdlog::info("test={} {}: {}", id(), v1::TestState_Name(state), summary);
  v1::RunTestEvent event;
  *event.mutable_finished() = report_;
  host_.Publish(id(), event);
  host_.Finished(id());
}

v1::Failure TestRun::RankFailure(int rank, v1::FailureKind kind, const std::string& message) const {
  const v1::RankAssignment& assignment = report_.ranks(rank);
  v1::Failure failure;
  failure.set_kind(kind);
  failure.set_rank(rank);
  failure.set_node_name(assignment.node_name());
  failure.set_local_rank(assignment.local_rank());
  failure.set_device_index(assignment.device_index());
  failure.set_message(message);
  return failure;
}

std::string TestRun::DescribeRank(int rank) const {
  const v1::RankAssignment& assignment = report_.ranks(rank);
  std::string text = absl::StrCat("rank ", rank, " (node ", assignment.node_name(), ", slot ",
                                  assignment.local_rank());
  if (assignment.device_index() >= 0) absl::StrAppend(&text, ", GPU ", assignment.device_index());
  return text + ")";
}

std::string TestRun::DescribeLaggards(const char* what) const {
  int min_level = FinishedLevel();
  for (const RankProgress& progress : progress_) min_level = std::min(min_level, progress.level);
  std::vector<std::string> ranks;
  for (int rank = 0; rank < static_cast<int>(progress_.size()); ++rank) {
    if (progress_[rank].level == min_level) ranks.push_back(DescribeRank(rank));
  }
  return absl::StrCat(what, ": ", absl::StrJoin(ranks, ", "));
}

}  // namespace eb::coordinator
