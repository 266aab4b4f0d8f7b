#include "coordinator/core/collective_tests/collective_test_manager.h"

#include <set>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/spec/identifiers.h"
#include "common/spec/limits.h"
#include "common/status/status_macros.h"
#include "coordinator/core/collective_tests/spec_validator.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

TestManager::TestManager(common::Clock& clock, common::Executor& executor, NodeRegistry& registry,
                         RendezvousKv& rendezvous, const CoordinatorConfig& config,
                         TestHistory& history, IdGenerator id_generator)
    : clock_(clock),
      executor_(executor),
      registry_(registry),
      rendezvous_(rendezvous),
      config_(config),
      id_generator_(std::move(id_generator)),
      history_(history) {}

TestManager::~TestManager() = default;

std::string TestManager::NewTestId() {
  if (id_generator_) return id_generator_();
  static absl::BitGen bitgen;
  return absl::StrCat("t-", absl::FormatTime("%Y%m%d-%H%M%S", clock_.Now(), absl::UTCTimeZone()),
                      "-", absl::StrFormat("%04x", absl::Uniform<uint32_t>(bitgen, 0, 0x10000)));
}

void TestManager::Record(const v1::TestReport& report) {
  // A full disk or a broken file must not fail tests: they still run and
  // stream their results; only `ebctl tests`/`show` miss them later.
  if (absl::Status status = history_.Save(report); !status.ok()) {
    spdlog::error("test={} cannot be recorded in the history: {}", report.test_id(),
                  status.ToString());
  }
}

void TestManager::Reserve(const std::vector<std::string>& nodes, const std::string& holder) {
  for (const std::string& name : nodes) reserved_by_.try_emplace(name, holder);
}

void TestManager::Release(const std::string& holder) {
  std::erase_if(reserved_by_, [&holder](const auto& entry) { return entry.second == holder; });
}

std::string TestManager::ReservedBy(const std::string& node) const {
  auto it = reserved_by_.find(node);
  return it == reserved_by_.end() ? "" : it->second;
}

absl::StatusOr<std::vector<const NodeRecord*>> TestManager::SelectNodes(
    const v1::TestSpec& spec, const std::string& reservation) {
  // The holder of a node reserved for someone other than `reservation`.
  auto reserved_for_other = [&](const std::string& name) -> std::string {
    std::string holder = ReservedBy(name);
    return holder == reservation ? "" : holder;
  };
  std::vector<const NodeRecord*> nodes;
  if (spec.node_names().empty()) {
    // No list: every idle node, up to kMaxNodesPerTest; beyond that the
    // caller must name them (docs/SECURITY.md, "Limits"; case 11).
    for (const NodeRecord* node : registry_.All()) {
      if (node->state == v1::NODE_STATE_IDLE && reserved_for_other(node->name).empty()) {
        nodes.push_back(node);
      }
    }
    if (nodes.size() > static_cast<size_t>(spec::kMaxNodesPerTest)) {
      return absl::InvalidArgumentError(absl::StrCat("node_names: none given, and ", nodes.size(),
                                                     " nodes are idle; a test without a node "
                                                     "list runs on every idle node, at most ",
                                                     spec::kMaxNodesPerTest,
                                                     ": name the nodes (--nodes)"));
    }
    if (nodes.empty()) {
      return absl::FailedPreconditionError(
          registry_.All().empty() ? "node_names: no agent is registered with the coordinator"
                                  : "node_names: no registered node is idle (or every idle "
                                    "node is reserved by a validation)");
    }
    return nodes;
  }
  for (const std::string& name : spec.node_names()) {
    NodeRecord* node = registry_.Find(name);
    if (node == nullptr) {
      return absl::NotFoundError(
          absl::StrCat("node_names: node '", name, "' is not registered with the coordinator"));
    }
    if (node->state == v1::NODE_STATE_LOST) {
      return absl::UnavailableError(
          absl::StrCat("node_names: node '", name, "' is lost (its agent is not connected)"));
    }
    if (node->state == v1::NODE_STATE_BUSY) {
      return absl::ResourceExhaustedError(
          absl::StrCat("node_names: node '", name, "' is busy with test ", node->current_test_id));
    }
    if (std::string holder = reserved_for_other(name); !holder.empty()) {
      return absl::ResourceExhaustedError(
          absl::StrCat("node_names: node '", name, "' is reserved by ", holder));
    }
    nodes.push_back(node);
  }
  return nodes;
}

absl::StatusOr<std::string> TestManager::StartTest(const v1::TestSpec& request,
                                                   std::shared_ptr<TestObserver> observer,
                                                   const std::string& started_by,
                                                   const std::string& reservation) {
  // ValidateAndNormalize computes and checks the sweep's sizes, once; they
  // are laid out over the ranks below, once the placement is known.
  std::vector<int64_t> sweep_sizes;
  EB_ASSIGN_OR_RETURN(v1::TestSpec spec, ValidateAndNormalize(request, config_, &sweep_sizes));
  EB_ASSIGN_OR_RETURN(const std::vector<const NodeRecord*> nodes, SelectNodes(spec, reservation));
  EB_ASSIGN_OR_RETURN(TestPlacement placement, PlaceTest(nodes, spec));
  // The sweep the test runs, laid out over its ranks: sent to every agent
  // and checked against every rank's report.
  EB_ASSIGN_OR_RETURN(std::vector<PlannedSize> sweep,
                      LayOutSweep(spec, sweep_sizes, static_cast<int>(placement.ranks.size())));
  return Launch(std::move(spec), std::move(placement), std::move(sweep), std::move(observer),
                started_by);
}

std::string TestManager::Launch(v1::TestSpec spec, TestPlacement placement,
                                std::vector<PlannedSize> sweep,
                                std::shared_ptr<TestObserver> observer,
                                const std::string& started_by) {
  std::string test_id = NewTestId();
  // Ids are unique across restarts too: a recorded test is never replaced.
  while (running_.contains(test_id) || history_.Get(test_id).ok()) test_id = NewTestId();
  const TestRunTimeouts timeouts{absl::Milliseconds(spec.timeout_ms()),
                                 absl::Milliseconds(spec.launch_timeout_ms()),
                                 absl::Milliseconds(spec.init_timeout_ms()),
                                 absl::Milliseconds(spec.step_timeout_ms()),
                                 config_.stop_timeout,
                                 config_.stall_floor};
  const size_t started_ranks = placement.ranks.size();
  // Each node's ranks: its share of the rendezvous (quotas per node).
  std::map<std::string, int> ranks_per_node;
  for (const v1::RankAssignment& rank : placement.ranks) ++ranks_per_node[rank.node_name()];
  auto run = std::make_unique<TestRun>(test_id, std::move(spec), std::move(placement.ranks),
                                       std::move(sweep), std::move(placement.inventories), timeouts,
                                       clock_, executor_, *this);
  run->set_started_by(started_by);
  for (const std::string& line : placement.drift_warnings) run->add_drift_warning(line);
  for (const std::string& name : placement.node_names) registry_.SetBusy(name, test_id);
  rendezvous_.Open(test_id, static_cast<int>(started_ranks), ranks_per_node);
  TestRun* started = run.get();
  running_[test_id] = Running{std::move(run), std::move(observer)};
  started->Start();
  // Recorded as LAUNCHING, so that a coordinator that dies now leaves a
  // trace (marked interrupted at its next start). Start() may already have
  // finished the run, which Finished() recorded.
  if (running_.contains(test_id)) Record(started->report());
  return test_id;
}

absl::Status TestManager::CancelTest(const std::string& test_id, const std::string& reason) {
  // Checked before any lookup, so that the error never echoes a huge input
  // (a 100 KB id overflowed gRPC's metadata limit, case 14).
  EB_RETURN_IF_ERROR(spec::CheckTestId(test_id, "test_id"));
  auto it = running_.find(test_id);
  if (it == running_.end()) {
    return absl::NotFoundError(absl::StrCat("test_id: no running test '", test_id, "'"));
  }
  it->second.run->Cancel(reason);
  return absl::OkStatus();
}

void TestManager::InterruptAll(const std::string& reason) {
  // Collect first: Interrupt finishes each run, which edits running_.
  std::vector<TestRun*> runs;
  for (auto& [id, running] : running_) runs.push_back(running.run.get());
  for (TestRun* run : runs) run->Interrupt(reason);
}

absl::StatusOr<v1::TestReport> TestManager::GetTest(const std::string& test_id) const {
  EB_RETURN_IF_ERROR(spec::CheckTestId(test_id, "test_id"));
  if (auto it = running_.find(test_id); it != running_.end()) return it->second.run->report();
  absl::StatusOr<v1::TestReport> report = history_.Get(test_id);
  if (report.status().code() == absl::StatusCode::kNotFound) {
    return absl::NotFoundError(absl::StrCat("test_id: no test '", test_id, "'"));
  }
  return report;
}

const TestRun* TestManager::FindRunning(const std::string& test_id) const {
  auto it = running_.find(test_id);
  return it == running_.end() ? nullptr : it->second.run.get();
}

std::vector<v1::TestReport> TestManager::ListTests(int limit) const {
  absl::StatusOr<std::vector<v1::TestReport>> recorded = history_.List(limit);
  if (!recorded.ok()) {
    spdlog::error("cannot list the test history: {}", recorded.status().ToString());
    recorded = std::vector<v1::TestReport>();
  }
  // Running tests are recorded as they start; show their live state. One
  // whose start could not be recorded is added.
  std::vector<v1::TestReport> result;
  std::set<std::string> listed;
  for (v1::TestReport& report : *recorded) {
    auto it = running_.find(report.test_id());
    if (it != running_.end()) report = WithoutResults(it->second.run->report());
    listed.insert(report.test_id());
    result.push_back(std::move(report));
  }
  for (const auto& [id, running] : running_) {
    if (!listed.contains(id)) result.push_back(WithoutResults(running.run->report()));
  }
  std::stable_sort(result.begin(), result.end(), ListedBefore);
  if (limit > 0 && static_cast<int>(result.size()) > limit) result.resize(limit);
  return result;
}

void TestManager::OnWorkerEvent(const std::string& node, const v1::WorkerEvent& event) {
  auto it = running_.find(event.test_id());
  if (it == running_.end()) {
    spdlog::debug("node={} sent an event for test {}, which is not running", node, event.test_id());
    return;
  }
  it->second.run->OnWorkerEvent(node, event);
}

void TestManager::OnWorkersStopped(const std::string& node, const std::string& test_id) {
  auto it = running_.find(test_id);
  if (it != running_.end()) it->second.run->OnWorkersStopped(node);
}

void TestManager::OnWorkersStopped(const std::string& node, const v1::WorkersStopped& stopped) {
  auto it = running_.find(stopped.test_id());
  if (it == running_.end()) return;
  if (stopped.has_evidence()) it->second.run->OnNodeEvidence(node, stopped.evidence());
  it->second.run->OnWorkersStopped(node);
}

void TestManager::OnNodeLost(const std::string& node, const std::string& reason) {
  // Collect first: OnNodeLost may finish a run, which edits running_.
  std::vector<TestRun*> affected;
  for (auto& [id, running] : running_) affected.push_back(running.run.get());
  for (TestRun* run : affected) run->OnNodeLost(node, reason);
}

void TestManager::SendToNode(const std::string& node, const v1::CoordinatorMessage& message) {
  NodeRecord* record = registry_.Find(node);
  if (record == nullptr || record->channel == nullptr) {
    spdlog::warn("node={} is not connected; dropped a command", node);
    return;
  }
  record->channel->Send(message);
}

void TestManager::Publish(const std::string& test_id, const v1::RunTestEvent& event) {
  auto it = running_.find(test_id);
  if (it != running_.end() && it->second.observer) it->second.observer->OnEvent(event);
}

void TestManager::Finished(const std::string& test_id) {
  auto it = running_.find(test_id);
  if (it == running_.end()) return;
  TestRun& run = *it->second.run;
  for (const std::string& node : run.nodes()) registry_.SetIdle(node, test_id);
  rendezvous_.Close(test_id, v1::TestState_Name(run.report().state()));
  Record(run.report());
  if (on_finished_) on_finished_(run.report());
  graveyard_.push_back(std::move(it->second.run));
  running_.erase(it);
  executor_.Post([this] { graveyard_.clear(); });
}

}  // namespace eb::coordinator
