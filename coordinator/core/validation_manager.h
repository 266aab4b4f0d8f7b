#pragma once

// Runs fleet validations (issue 11) as a coordinator resource: it turns the
// registry's nodes into the pure core's fleet (eb::validation::Validation),
// starts each round's tests through the TestManager, maps every finished
// TestReport to a TestResult, and goes on until the core is done, the
// validation is cancelled, or its deadline passes. Clients only watch: a
// lost stream never stops a validation. Owned by the coordinator's
// executor: every method runs on it.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/exec/executor.h"
#include "common/time/clock.h"
#include "coordinator/core/collective_tests/collective_test_manager.h"
#include "coordinator/core/nodes/node_registry.h"
#include "coordinator/history/validation_history.h"
#include "coordinator/topology/fabric_source.h"
#include "coordinator/validation/validation.h"

namespace eb::coordinator {

// A client of a validation (a RunValidation or WatchValidation stream).
// Thread-safe, non-blocking; the last event it gets is `finished`.
class ValidationObserver {
 public:
  virtual ~ValidationObserver() = default;
  virtual void OnEvent(const ebnccl::v1::ValidationEvent& event) = 0;
};

struct ValidationManagerConfig {
  // Deadline of a validation whose spec sets none.
  absl::Duration default_timeout = absl::Hours(6);
  // Text of the coordinator's baselines file ("" = none: verdicts rest on
  // the fleet median) and where it came from, for the report.
  std::string baselines_toml;
  std::string baselines_origin;
  // Why the configured file could not be read (with baselines_toml and
  // baselines_origin empty): each report says so instead of naming the
  // file as used.
  std::string baselines_error;
  // The fabric of [topology] file (issue 31); null: none. With it round 1
  // pairs nodes across leaves (NodeFromRecord), a slow pair of healthy
  // nodes is followed by link rounds, and the report names links.
  std::shared_ptr<const topology::FabricSource> fabric;
};

class ValidationManager {
 public:
  using IdGenerator = std::function<std::string()>;

  // `tests`, `registry` and `history` must outlive the manager.
  ValidationManager(common::Clock& clock, common::Executor& executor, NodeRegistry& registry,
                    TestManager& tests, ValidationHistory& history, ValidationManagerConfig config,
                    IdGenerator id_generator = nullptr);
  ~ValidationManager();

  // Checks `spec` and starts it. INVALID_ARGUMENT naming the field; NOT_FOUND
  // for an unknown node; RESOURCE_EXHAUSTED for a node in another
  // validation or busy with a test; FAILED_PRECONDITION when no node is
  // idle. Returns the id; `observer` gets `accepted` first.
  // `started_by` (the caller's identity) goes into the report; its tests
  // are started by "validation <id>".
  // `leave_out`: nodes the scheduler holds (issue 30: they hold a job, or
  // an operator drained them), each with why: never tested, listed in the
  // report's `skipped`; FAILED_PRECONDITION when no node is left.
  absl::StatusOr<std::string> Start(ebnccl::v1::ValidationSpec spec,
                                    std::shared_ptr<ValidationObserver> observer,
                                    const std::string& started_by = "",
                                    const std::map<std::string, std::string>& leave_out = {});
  // Called on the executor with each validation's final report, once it is
  // recorded (the scheduler integration acts on its verdicts).
  void set_on_finished(std::function<void(const ebnccl::v1::ValidationReport&)> on_finished) {
    on_finished_ = std::move(on_finished);
  }
  // `observer` gets the current report as `accepted`, then the events; at
  // once `finished` too when the validation is over. NOT_FOUND otherwise.
  absl::Status Watch(const std::string& id, std::shared_ptr<ValidationObserver> observer);
  // Cancels the running tests; the validation ends CANCELLED once they
  // have. NOT_FOUND for an unknown or finished validation.
  absl::Status Cancel(const std::string& id, const std::string& reason) {
    return StopById(id, ebnccl::v1::VALIDATION_STATE_CANCELLED, reason);
  }
  // As Cancel, but the validation ends PREEMPTED: the scheduler took its
  // nodes back for a tenant job (issue 30, the sentinel). Its tests are
  // cancelled at once; its node verdicts are never evidence.
  absl::Status Preempt(const std::string& id, const std::string& reason) {
    return StopById(id, ebnccl::v1::VALIDATION_STATE_PREEMPTED, reason);
  }
  // Live report or one from the history.
  absl::StatusOr<ebnccl::v1::ValidationReport> Get(const std::string& id) const;
  // Running and recorded validations, newest first, without evidence.
  std::vector<ebnccl::v1::ValidationReport> List(int limit) const;

  // Each node's last verdict (from the history; a history error is logged
  // and gives none), by node name.
  std::map<std::string, NodeVerdictRecord> LastVerdicts() const;

  // Ends every running validation as INTERRUPTED (recorded, the final
  // event sent): the coordinator is going away. Their tests are left to
  // TestManager::InterruptAll.
  void InterruptAll(const std::string& reason);

  int RunningCount() const { return static_cast<int>(running_.size()); }

 private:
  struct Running;

  absl::StatusOr<std::vector<validation::Node>> SelectNodes(
      const ebnccl::v1::ValidationSpec& spec, const std::map<std::string, std::string>& leave_out);
  void NextRound(Running& v);
  // Starts one planned test; the result to record when it cannot start.
  std::optional<validation::TestResult> StartPlanned(Running& v,
                                                     const validation::PlannedTest& planned);
  void TestFinished(const std::string& id, int64_t planned_id,
                    const ebnccl::v1::TestReport& report);
  void Record(Running& v, const validation::TestResult& result, int64_t end_ms);
  void Stop(Running& v, ebnccl::v1::ValidationState state, const std::string& reason);
  // Stop of the running validation `id`; NOT_FOUND when none runs.
  absl::Status StopById(const std::string& id, ebnccl::v1::ValidationState state,
                        const std::string& reason);
  void Finish(const std::string& id, ebnccl::v1::ValidationState state, const std::string& reason);
  ebnccl::v1::ValidationReport Snapshot(const Running& v) const;
  void Publish(Running& v, const ebnccl::v1::ValidationEvent& event);
  void Save(const ebnccl::v1::ValidationReport& report);
  std::string NewId();
  int64_t NowMs() const;

  common::Clock& clock_;
  common::Executor& executor_;
  NodeRegistry& registry_;
  TestManager& tests_;
  ValidationHistory& history_;
  const ValidationManagerConfig config_;
  IdGenerator id_generator_;
  std::function<void(const ebnccl::v1::ValidationReport&)> on_finished_;
  std::map<std::string, std::unique_ptr<Running>> running_;
  // Cleared when the manager goes: posted callbacks and timers check it.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace eb::coordinator
