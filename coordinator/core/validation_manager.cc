#include "coordinator/core/validation_manager.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/spec/identifiers.h"
#include "common/status/status_macros.h"
#include "coordinator/core/collective_tests/transport_selection.h"
#include "coordinator/core/validation_fleet.h"
#include "coordinator/validation/baselines_toml.h"
#include "coordinator/validation/report_proto.h"
#include "coordinator/validation/result_from_report.h"
#include "coordinator/validation/spec_proto.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {

namespace v1 = ebnccl::v1;
namespace val = eb::validation;

// One validation in flight. `report` holds what the manager knows (spec,
// rounds, times, baselines); the verdicts come from `core` in Snapshot.
struct ValidationManager::Running {
  std::string id;
  v1::ValidationSpec spec;
  std::unique_ptr<val::Validation> core;
  v1::ValidationReport report;
  std::vector<std::shared_ptr<ValidationObserver>> observers;
  std::set<std::string> nodes;
  std::map<int64_t, std::string> test_ids;  // planned id -> coordinator test id
  std::map<int64_t, int> test_index;        // planned id -> index in the last round
  int pending = 0;                          // tests of the round still running
  bool stopping = false;                    // cancelled or past its deadline
  v1::ValidationState stop_state = v1::VALIDATION_STATE_CANCELLED;
  std::string stop_reason;
  common::TimerId deadline = 0;
  int64_t soak_until_ms = 0;  // set when the first soak repeat starts
};

namespace {

// How a validation names itself to the test manager: the holder of its
// nodes' reservation, and the `started_by` of its tests.
std::string Holder(const std::string& validation_id) { return "validation " + validation_id; }

// Forwards a test's final report to the manager on a later executor turn:
// the TestManager publishes `finished` before it frees the test's nodes, and
// the next round needs them free.
class PlannedTestObserver final : public TestObserver {
 public:
  using Done = std::function<void(const v1::TestReport&)>;
  PlannedTestObserver(common::Executor& executor, Done done)
      : executor_(executor), done_(std::move(done)) {}
  void OnEvent(const v1::RunTestEvent& event) override {
    if (!event.has_finished()) return;
    executor_.Post([done = done_, report = event.finished()] { done(report); });
  }

 private:
  common::Executor& executor_;
  Done done_;
};

std::string StateText(v1::ValidationState state) {
  std::string name = v1::ValidationState_Name(state);
  return absl::AsciiStrToLower(name.substr(std::string("VALIDATION_STATE_").size()));
}

}  // namespace

ValidationManager::ValidationManager(common::Clock& clock, common::Executor& executor,
                                     NodeRegistry& registry, TestManager& tests,
                                     ValidationHistory& history, ValidationManagerConfig config,
                                     IdGenerator id_generator)
    : clock_(clock),
      executor_(executor),
      registry_(registry),
      tests_(tests),
      history_(history),
      config_(std::move(config)),
      id_generator_(std::move(id_generator)) {}

ValidationManager::~ValidationManager() {
  *alive_ = false;
  for (auto& [id, v] : running_) executor_.Cancel(v->deadline);
}

int64_t ValidationManager::NowMs() const { return absl::ToUnixMillis(clock_.Now()); }

std::string ValidationManager::NewId() {
  if (id_generator_) return id_generator_();
  static absl::BitGen bitgen;
  return absl::StrCat("v-", absl::FormatTime("%Y%m%d-%H%M%S", clock_.Now(), absl::UTCTimeZone()),
                      "-", absl::StrFormat("%04x", absl::Uniform<uint32_t>(bitgen, 0, 0x10000)));
}

absl::StatusOr<std::vector<val::Node>> ValidationManager::SelectNodes(
    const v1::ValidationSpec& spec, const std::map<std::string, std::string>& leave_out) {
  // A running validation reserves its nodes (Start): its holder name.
  auto in_validation = [this](const std::string& name) { return tests_.ReservedBy(name); };
  const topology::Fabric* fabric = config_.fabric ? &config_.fabric->fabric : nullptr;
  std::vector<val::Node> nodes;
  if (spec.node_names().empty()) {
    for (const NodeRecord* record : registry_.All()) {
      if (record->state != v1::NODE_STATE_IDLE || !in_validation(record->name).empty()) continue;
      if (leave_out.contains(record->name)) continue;
      nodes.push_back(NodeFromRecord(*record, fabric));
    }
    if (nodes.empty()) {
      return absl::FailedPreconditionError(
          leave_out.empty() ? "node_names: no registered node is idle"
                            : "node_names: no registered node is idle and free of the scheduler");
    }
    return nodes;
  }
  for (const std::string& name : spec.node_names()) {
    const NodeRecord* record = registry_.Find(name);
    if (record == nullptr) {
      return absl::NotFoundError(absl::StrCat("node_names: unknown node '", name, "'"));
    }
    // The scheduler holds it: left out, reported (never an error: the
    // fleet file names every node, and some always hold jobs).
    if (leave_out.contains(name)) continue;
    if (std::string other = in_validation(name); !other.empty()) {
      return absl::ResourceExhaustedError(absl::StrCat("node_names: '", name, "' is in ", other));
    }
    if (record->state == v1::NODE_STATE_BUSY) {
      return absl::ResourceExhaustedError(
          absl::StrCat("node_names: '", name, "' is busy with test ", record->current_test_id));
    }
    // A lost node stays in: the core reports it untestable.
    nodes.push_back(NodeFromRecord(*record, fabric));
  }
  if (nodes.empty()) {
    std::string why;
    for (const auto& [node, reason] : leave_out) absl::StrAppend(&why, "; ", node, ": ", reason);
    return absl::FailedPreconditionError(
        absl::StrCat("node_names: every node named is held by the scheduler", why));
  }
  return nodes;
}

absl::StatusOr<std::string> ValidationManager::Start(
    v1::ValidationSpec spec, std::shared_ptr<ValidationObserver> observer,
    const std::string& started_by, const std::map<std::string, std::string>& leave_out) {
  if (absl::Status status = val::NormalizeValidationSpec(spec); !status.ok()) return status;
  absl::StatusOr<std::vector<val::Node>> nodes = SelectNodes(spec, leave_out);
  if (!nodes.ok()) return nodes.status();
  const bool own_baselines = !spec.baselines_toml().empty();
  absl::StatusOr<val::BaselineTable> baselines =
      val::ParseBaselinesToml(own_baselines ? spec.baselines_toml() : config_.baselines_toml);
  if (!baselines.ok()) {
    const std::string message = std::string(baselines.status().message());
    if (own_baselines) return absl::InvalidArgumentError("baselines_toml: " + message);
    return absl::FailedPreconditionError(
        absl::StrCat("the coordinator's baselines (", config_.baselines_origin, "): ", message));
  }
  absl::StatusOr<val::Options> options =
      val::OptionsFromSpec(spec, *baselines, FleetRunsNccl(registry_, spec.transport(), *nodes));
  if (!options.ok()) return options.status();
  if (config_.fabric) options->fabric = {config_.fabric, &config_.fabric->fabric};  // aliasing
  absl::StatusOr<std::unique_ptr<val::Validation>> core =
      val::Validation::Create(*nodes, *std::move(options));
  if (!core.ok()) return core.status();
  auto v = std::make_unique<Running>();
  v->id = NewId();
  spec.clear_node_names();
  for (const val::Node& node : *nodes) {
    spec.add_node_names(node.name);
    v->nodes.insert(node.name);
  }
  // Between rounds its nodes are idle: no other test may take them.
  tests_.Reserve(std::vector<std::string>(v->nodes.begin(), v->nodes.end()), Holder(v->id));
  v->report.set_schema_version(1);
  v->report.set_started_by(started_by);
  for (const auto& [node, reason] : leave_out) {
    v1::SkippedNode& skipped = *v->report.add_skipped();
    skipped.set_node_name(node);
    skipped.set_reason(reason);
  }
  v->report.set_validation_id(v->id);
  v->report.set_state(v1::VALIDATION_STATE_RUNNING);
  v->report.set_start_time_unix_ms(NowMs());
  val::FillBaselines(*baselines, own_baselines ? "request" : config_.baselines_origin,
                     own_baselines ? "" : config_.baselines_error, v->report);
  spec.clear_baselines_toml();  // kept as BaselineUsed rows, not as text
  *v->report.mutable_spec() = spec;
  v->spec = std::move(spec);
  v->core = *std::move(core);
  if (observer) v->observers.push_back(std::move(observer));
  const absl::Duration timeout =
      v->spec.timeout_ms() > 0 ? absl::Milliseconds(v->spec.timeout_ms()) : config_.default_timeout;
  const std::string id = v->id;
  v->deadline = executor_.PostAfter(timeout, [this, alive = alive_, id, timeout] {
    if (!*alive) return;
    auto it = running_.find(id);
    if (it == running_.end()) return;
    it->second->deadline = 0;
    Stop(*it->second, v1::VALIDATION_STATE_TIMED_OUT,
         absl::StrCat("the validation's deadline (", absl::FormatDuration(timeout), ") passed"));
  });
  Running& started = *v;
  running_[id] = std::move(v);
  spdlog::info("validation={} started over {} node(s)", id, started.nodes.size());
  v1::ValidationEvent accepted;
  *accepted.mutable_accepted() = Snapshot(started);
  Save(accepted.accepted());
  Publish(started, accepted);
  NextRound(started);
  return id;
}

void ValidationManager::NextRound(Running& v) {
  // The soak runs from its first repeat's start for spec.soak_ms.
  if (v.soak_until_ms > 0) v.core->KeepSoaking(NowMs() < v.soak_until_ms);
  absl::StatusOr<val::Round> round = v.core->NextRound();
  if (!round.ok()) {
    Finish(v.id, v1::VALIDATION_STATE_FAILED, std::string(round.status().message()));
    return;
  }
  if (round->done) {
    Finish(v.id, v1::VALIDATION_STATE_DONE, "");
    return;
  }
  v1::ValidationRound& r = *v.report.add_rounds();
  r.set_number(round->number);
  r.set_kind(val::ToWire(round->kind));
  r.set_suite_round(round->suite_round);
  r.set_soak(round->soak);
  r.set_start_time_unix_ms(NowMs());
  if (round->soak && v.soak_until_ms == 0) v.soak_until_ms = NowMs() + v.spec.soak_ms();
  v.test_index.clear();
  for (const val::PlannedTest& planned : round->tests) {
    v.test_index[planned.id] = r.tests_size();
    v1::ValidationTest& t = *r.add_tests();
    t.set_planned_id(planned.id);
    for (const std::string& node : planned.nodes) t.add_node_names(node);
    t.set_kind(val::ToWire(planned.kind));
    t.set_purpose(planned.purpose);
    t.set_start_time_unix_ms(NowMs());
  }
  spdlog::info("validation={} round {} ({} round {}): {} test(s)", v.id, round->number, r.kind(),
               round->suite_round, round->tests.size());
  std::vector<val::TestResult> not_started;
  for (const val::PlannedTest& planned : round->tests) {
    if (std::optional<val::TestResult> failed = StartPlanned(v, planned)) {
      not_started.push_back(*std::move(failed));
    }
  }
  v1::ValidationEvent event;
  *event.mutable_round_started() = v.report.rounds(v.report.rounds_size() - 1);
  Publish(v, event);
  for (const val::TestResult& result : not_started) Record(v, result, NowMs());
  if (v.pending == 0) {
    // No test could start: go on from a fresh executor turn.
    executor_.Post([this, alive = alive_, id = v.id] {
      if (!*alive) return;
      auto it = running_.find(id);
      if (it == running_.end()) return;
      Running& again = *it->second;
      v1::ValidationRound& last = *again.report.mutable_rounds()->rbegin();
      last.set_end_time_unix_ms(NowMs());
      if (again.stopping) {
        Finish(id, again.stop_state, again.stop_reason);
      } else {
        NextRound(again);
      }
    });
  }
}

std::optional<val::TestResult> ValidationManager::StartPlanned(Running& v,
                                                               const val::PlannedTest& planned) {
  std::vector<std::string> lost;
  std::vector<v1::NodeInventory> inventories;
  for (const std::string& name : planned.nodes) {
    const NodeRecord* record = registry_.Find(name);
    if (record == nullptr || record->state == v1::NODE_STATE_LOST) {
      lost.push_back(name);
    } else {
      inventories.push_back(record->inventory);
    }
  }
  if (!lost.empty()) {
    return val::TestResult::InfraFailure(
        planned.id, lost, absl::StrCat("agent of ", absl::StrJoin(lost, ", "), " lost"));
  }
  absl::StatusOr<v1::Transport> transport =
      SelectTransport(v.spec.transport(), planned.nodes, inventories);
  const bool nccl = transport.ok() && *transport == v1::TRANSPORT_NCCL;
  const v1::TestSpec test_spec = val::TestSpecFor(planned, v.spec, nccl);
  auto observer = std::make_shared<PlannedTestObserver>(
      executor_,
      [this, alive = alive_, id = v.id, planned_id = planned.id](const v1::TestReport& report) {
        if (*alive) TestFinished(id, planned_id, report);
      });
  absl::StatusOr<std::string> test_id =
      tests_.StartTest(test_spec, std::move(observer), Holder(v.id), Holder(v.id));
  if (!test_id.ok()) {
    // Not the nodes' fault as far as anyone can tell (e.g. a node busy with
    // someone's test): a strike each, untestable after two.
    return val::TestResult::InfraFailure(
        planned.id, {}, absl::StrCat("the test could not start: ", test_id.status().ToString()));
  }
  v.test_ids[planned.id] = *test_id;
  const int index = v.test_index[planned.id];
  v.report.mutable_rounds()->rbegin()->mutable_tests(index)->set_test_id(*test_id);
  ++v.pending;
  return std::nullopt;
}

void ValidationManager::TestFinished(const std::string& id, int64_t planned_id,
                                     const v1::TestReport& report) {
  auto it = running_.find(id);
  if (it == running_.end()) return;
  Running& v = *it->second;
  Record(v, val::ResultFromReport(planned_id, report), report.end_time_unix_ms());
  if (--v.pending > 0) return;
  v.report.mutable_rounds()->rbegin()->set_end_time_unix_ms(NowMs());
  if (v.stopping) {
    Finish(id, v.stop_state, v.stop_reason);
  } else {
    NextRound(v);
  }
}

void ValidationManager::Record(Running& v, const val::TestResult& result, int64_t end_ms) {
  v1::ValidationTest& t =
      *v.report.mutable_rounds()->rbegin()->mutable_tests(v.test_index.at(result.test_id));
  t.set_outcome(val::ToWire(result.outcome));
  t.set_busbw_gbps(result.busbw_gbps);
  t.set_message(result.message);
  t.set_end_time_unix_ms(end_ms > 0 ? end_ms : NowMs());
  // A test cancelled because the validation stops says nothing of its
  // nodes: kept in the rounds, not given to the core.
  const bool stopped = v.stopping && result.outcome == val::Outcome::kInfraFailure;
  if (!stopped) {
    if (absl::Status status = v.core->Record(result); !status.ok()) {
      spdlog::error("validation={} cannot record test {}: {}", v.id, t.test_id(),
                    status.ToString());
    }
  }
  v1::ValidationEvent event;
  *event.mutable_test_finished() = t;
  Publish(v, event);
}

void ValidationManager::Stop(Running& v, v1::ValidationState state, const std::string& reason) {
  if (v.stopping) return;
  v.stopping = true;
  v.stop_state = state;
  v.stop_reason = reason;
  if (v.deadline != 0) executor_.Cancel(v.deadline);
  v.deadline = 0;
  spdlog::info("validation={} stopping ({}): {}", v.id, StateText(state), reason);
  if (v.pending == 0) {
    Finish(v.id, state, reason);
    return;
  }
  // Their `finished` events arrive on later turns; the last one finishes
  // the validation (TestFinished).
  const v1::ValidationRound& round = *v.report.rounds().rbegin();
  for (const v1::ValidationTest& t : round.tests()) {
    if (t.test_id().empty() || t.outcome() != v1::OUTCOME_UNSPECIFIED) continue;
    if (absl::Status status = tests_.CancelTest(t.test_id(), "validation " + v.id + ": " + reason);
        !status.ok() && !absl::IsNotFound(status)) {
      spdlog::warn("validation={} cannot cancel {}: {}", v.id, t.test_id(), status.ToString());
    }
  }
}

void ValidationManager::InterruptAll(const std::string& reason) {
  std::vector<std::string> ids;
  for (const auto& [id, v] : running_) ids.push_back(id);
  for (const std::string& id : ids) Finish(id, v1::VALIDATION_STATE_INTERRUPTED, reason);
}

absl::Status ValidationManager::StopById(const std::string& id, v1::ValidationState state,
                                         const std::string& reason) {
  // Ids are checked before any lookup, so that no error echoes a huge one
  // (SECURITY_FINDINGS case 14).
  EB_RETURN_IF_ERROR(spec::CheckTestId(id, "validation_id"));
  auto it = running_.find(id);
  if (it == running_.end()) {
    return absl::NotFoundError(absl::StrCat("validation '", id, "' is not running"));
  }
  Stop(*it->second, state, reason);
  return absl::OkStatus();
}

void ValidationManager::Finish(const std::string& id, v1::ValidationState state,
                               const std::string& reason) {
  auto it = running_.find(id);
  if (it == running_.end()) return;
  std::unique_ptr<Running> v = std::move(it->second);
  running_.erase(it);
  tests_.Release(Holder(id));
  if (v->deadline != 0) executor_.Cancel(v->deadline);
  if (state != v1::VALIDATION_STATE_DONE)
    v->core->Stop(absl::StrCat(StateText(state), ": ", reason));
  v1::ValidationEvent event;
  v1::ValidationReport& report = *event.mutable_finished();
  report = Snapshot(*v);
  report.set_state(state);
  report.set_end_time_unix_ms(NowMs());
  if (state != v1::VALIDATION_STATE_DONE) {
    report.set_summary(absl::StrCat(StateText(state), ": ", reason, "; ", report.summary()));
  }
  spdlog::info("validation={} {}: {}", id, StateText(state), report.summary());
  Save(report);
  Publish(*v, event);
  if (on_finished_) on_finished_(report);
}

v1::ValidationReport ValidationManager::Snapshot(const Running& v) const {
  v1::ValidationReport report = v.report;
  val::FillVerdicts(
      v.core->Report(),
      [&v](int64_t planned_id) {
        auto it = v.test_ids.find(planned_id);
        return it == v.test_ids.end() ? std::string() : it->second;
      },
      report);
  return report;
}

void ValidationManager::Publish(Running& v, const v1::ValidationEvent& event) {
  for (const auto& observer : v.observers) observer->OnEvent(event);
}

void ValidationManager::Save(const v1::ValidationReport& report) {
  // A full disk must not stop a validation: only `ebctl validations` misses it.
  if (absl::Status status = history_.Save(report); !status.ok()) {
    spdlog::error("validation={} cannot be recorded in the history: {}", report.validation_id(),
                  status.ToString());
  }
}

absl::Status ValidationManager::Watch(const std::string& id,
                                      std::shared_ptr<ValidationObserver> observer) {
  EB_RETURN_IF_ERROR(spec::CheckTestId(id, "validation_id"));
  if (auto it = running_.find(id); it != running_.end()) {
    v1::ValidationEvent accepted;
    *accepted.mutable_accepted() = Snapshot(*it->second);
    observer->OnEvent(accepted);
    it->second->observers.push_back(std::move(observer));
    return absl::OkStatus();
  }
  absl::StatusOr<v1::ValidationReport> report = history_.Get(id);
  if (!report.ok()) return report.status();
  v1::ValidationEvent event;
  *event.mutable_accepted() = *report;
  observer->OnEvent(event);
  if (IsTerminalValidationState(report->state())) {
    v1::ValidationEvent finished;
    *finished.mutable_finished() = *std::move(report);
    observer->OnEvent(finished);
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::ValidationReport> ValidationManager::Get(const std::string& id) const {
  EB_RETURN_IF_ERROR(spec::CheckTestId(id, "validation_id"));
  if (auto it = running_.find(id); it != running_.end()) return Snapshot(*it->second);
  return history_.Get(id);
}

std::vector<v1::ValidationReport> ValidationManager::List(int limit) const {
  std::vector<v1::ValidationReport> out;
  for (const auto& [id, v] : running_) out.push_back(WithoutEvidence(Snapshot(*v)));
  absl::StatusOr<std::vector<v1::ValidationReport>> stored = history_.List(limit);
  if (!stored.ok()) {
    spdlog::error("validations cannot be listed from the history: {}", stored.status().ToString());
  } else {
    for (v1::ValidationReport& report : *stored) {
      if (running_.count(report.validation_id()) == 0) out.push_back(std::move(report));
    }
  }
  SortNewestFirst(out, limit);
  return out;
}

std::map<std::string, NodeVerdictRecord> ValidationManager::LastVerdicts() const {
  std::map<std::string, NodeVerdictRecord> out;
  absl::StatusOr<std::vector<NodeVerdictRecord>> records = history_.LastVerdicts();
  if (!records.ok()) {
    spdlog::error("nodes' last verdicts cannot be read: {}", records.status().ToString());
    return out;
  }
  for (NodeVerdictRecord& record : *records) out[record.node_name] = std::move(record);
  return out;
}

}  // namespace eb::coordinator
