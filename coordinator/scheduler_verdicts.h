#pragma once

// The verdicts the scheduler's decision core and the sentinel read, from the
// coordinator's record of validations: every node verdict of the recorded
// validations whose state records verdicts, each with the validation's
// fleet_below_expected finding when it had one (docs/DESIGN.md, "Fleet
// below its figure"). Called on the coordinator's loop (the history's).

#include <vector>

#include "coordinator/history/validation_history.h"
#include "coordinator/scheduler/scheduler_types.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

// The newest 1,000 validations of `history` (the core keeps what is within
// its windows), and `finished` too when the history does not list it yet
// (null: none).
std::vector<scheduler::NodeVerdictRecord> SchedulerVerdicts(
    ValidationHistory& history, const ebnccl::v1::ValidationReport* finished);

}  // namespace eb::coordinator
