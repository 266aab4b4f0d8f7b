#pragma once

// Which of ebnccl's nodes a validation must leave out because the scheduler
// holds them (issue 30: `ebctl validate` never runs a test on a node that
// holds a job). Pure; any thread.

#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "coordinator/scheduler/scheduler_types.h"

namespace eb::scheduler {

// The nodes of `names` not to test, each with one line of why:
//  - holds a job: allocated (unless one of our borrow jobs holds it) or
//    draining ("holds a job (allocated)");
//  - drained by someone else (its reason is not ours: `prefix`): the
//    operator's drain is theirs to lift, and a test would be traffic on a
//    node they took out ("drained by an operator: <reason>");
//  - down or unknown to the scheduler's state: it may hold a job we cannot
//    see;
//  - not listed by the scheduler at all (never guessed: "n1" is not
//    "n1.cluster").
// Idle nodes, ours on loan, and nodes drained by us (re-tested to be
// resumed: they hold no job) are tested. `scheduler` names the backend in
// the lines ("slurm").
std::map<std::string, std::string> NodesToLeaveOut(const std::vector<SchedulerNode>& nodes,
                                                   const std::vector<std::string>& names,
                                                   absl::string_view prefix,
                                                   absl::string_view scheduler);

}  // namespace eb::scheduler
