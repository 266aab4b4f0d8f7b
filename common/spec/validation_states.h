#pragma once

// What each validation state means to everyone who reads one: the one
// table (docs/DESIGN.md, "Vocabularies: one table each"). Whether it is an
// end state, whether its node verdicts are evidence (the scheduler's
// drains and resumes, the sentinel's dates), how `ebctl validate` exits
// when nothing bad was found, all follow from a state's row, so a new
// state is one row here (the switch in validation_states.cc names it) plus
// its value in control.proto. Pure; any thread.

#include "ebnccl/v1/control.pb.h"

namespace eb::spec {

// `ebctl validate`'s exit (coordinator/ebctl/exit_codes.h) for a report
// that found nothing bad or unfit.
enum class ValidationExit {
  kOk,                  // 0
  kOkUnlessUntestable,  // 0, or 3 when a node or finding is untestable
  kInterrupted,         // 130
  kTimeout,             // 4
  kInternal,            // 1
};

struct ValidationStateRow {
  // The validation is over (recorded, never changes again).
  bool terminal;
  // Its node verdicts judged the hardware: the scheduler integration and
  // the sentinel read them. A validation interrupted by a restart or
  // preempted by a tenant job judged what it had, not what it would have.
  bool records_verdicts;
  ValidationExit exit;
};

// The row of `state`; a value this build does not know (a newer peer)
// reads as VALIDATION_STATE_FAILED's row.
const ValidationStateRow& RowOf(ebnccl::v1::ValidationState state);

}  // namespace eb::spec
