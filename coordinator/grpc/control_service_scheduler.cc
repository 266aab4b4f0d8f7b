// ControlService's side of scheduler integration (issue 30): borrowing a
// validation's nodes through a scheduler job before it starts, and the
// scheduler's view of a node in the listing. Split from control_service.cc
// (its size).

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "coordinator/grpc/control_service.h"
#include "coordinator/scheduler/drain_reason.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

// The scheduler's view of one node in the listing: its state, and whose
// drain by the reason's prefix, the reason cut to one bounded line.
void FillSchedulerState(const scheduler::SchedulerNode& node, const std::string& prefix,
                        v1::NodeStatus& status) {
  status.set_scheduler_state(scheduler::NodeStateName(node.state));
  if (node.reason.empty()) return;
  status.set_scheduler_drained_by(scheduler::IsOurReason(node.reason, prefix) ? "ebnccl"
                                                                              : "operator");
  status.set_scheduler_reason(scheduler::OneLine(node.reason, 200));
}

void ControlService::BorrowAndStart(v1::ValidationSpec spec, const Caller& caller,
                                    const std::shared_ptr<ValidationObserver>& observer,
                                    const std::map<std::string, std::string>& leave_out,
                                    const std::function<void(const absl::Status&)>& fail) {
  // The nodes it would test: those named, else every idle registered node;
  // less the ones the scheduler holds.
  std::vector<std::string> borrow;
  if (spec.node_names().empty()) {
    for (const NodeRecord* record : registry_.All()) {
      if (record->state == v1::NODE_STATE_IDLE) borrow.push_back(record->name);
    }
  } else {
    borrow.assign(spec.node_names().begin(), spec.node_names().end());
  }
  std::erase_if(borrow, [&](const std::string& name) { return leave_out.contains(name); });
  // A node ebnccl drained takes no job, ours included (sbatch would wait
  // for it forever), and no tenant's either: tested as it is, unborrowed,
  // so that a passing validation can resume it. LeaveOut has just read it.
  const scheduler_io::SchedulerService::View view = scheduler_->LastRead();
  std::vector<std::string> drained;
  std::erase_if(borrow, [&](const std::string& name) {
    auto it = view.nodes.find(name);
    if (it == view.nodes.end() || (it->second.state != scheduler::NodeState::kDrained &&
                                   it->second.state != scheduler::NodeState::kDraining)) {
      return false;
    }
    drained.push_back(name);
    return true;
  });
  if (borrow.empty()) {
    // Nothing to borrow: Start says why nothing can be tested.
    if (absl::Status started = StartValidation(spec, caller, observer, leave_out); !started.ok()) {
      fail(started);
    }
    return;
  }
  // The job outlives the validation's own deadline a little: it is ended
  // when the validation ends, and its time limit only guards a crash.
  const absl::Duration timeout =
      spec.timeout_ms() > 0 ? absl::Milliseconds(spec.timeout_ms()) : scheduler_->default_borrow();
  const int seconds = static_cast<int>(
      std::min<int64_t>(absl::ToInt64Seconds(timeout) + 120, int64_t{7} * 24 * 3600));
  scheduler_->Borrow(
      borrow, seconds,
      [this, spec = std::move(spec), caller, observer, leave_out, drained = std::move(drained),
       fail](absl::StatusOr<scheduler_io::SchedulerService::Borrowed> borrowed) mutable {
        if (!borrowed.ok()) {
          absl::Status refused = absl::UnavailableError(
              absl::StrCat("no validation started: its nodes could not be borrowed: ",
                           borrowed.status().message()));
          audit_.Record(caller, "RunValidation",
                        absl::StrCat("nodes=", absl::StrJoin(spec.node_names(), ",")), refused);
          fail(refused);
          return;
        }
        // Exactly the allocated nodes, nothing that registered since.
        spec.clear_node_names();
        for (const std::string& node : borrowed->nodes) spec.add_node_names(node);
        for (const std::string& node : drained) spec.add_node_names(node);
        std::string id;
        absl::Status started = StartValidation(spec, caller, observer, leave_out, &id);
        if (!started.ok()) {
          scheduler_->GiveBack(borrowed->job_id, "the validation did not start");
          fail(started);
          return;
        }
        scheduler_->Hold(id, borrowed->job_id);
        // Ended already (within Start): its on_finished found no job.
        absl::StatusOr<v1::ValidationReport> report = validations_.Get(id);
        if (report.ok() && report->state() != v1::VALIDATION_STATE_RUNNING) {
          scheduler_->Release(id, "ended");
        }
      });
}

}  // namespace eb::coordinator
