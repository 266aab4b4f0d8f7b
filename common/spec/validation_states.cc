#include "common/spec/validation_states.h"

#include "common/spec/wire_switch.h"

namespace eb::spec {
namespace v1 = ebnccl::v1;

namespace {

using StateExit = ValidationExit;

// terminal, records_verdicts, exit (names unlike failure_kinds.cc's: one
// unity batch)
constexpr ValidationStateRow kStateRunning{false, false, StateExit::kOk};
constexpr ValidationStateRow kStateDone{true, true, StateExit::kOkUnlessUntestable};
constexpr ValidationStateRow kStateCancelled{true, true, StateExit::kInterrupted};
constexpr ValidationStateRow kStateTimedOut{true, true, StateExit::kTimeout};
constexpr ValidationStateRow kStateFailed{true, true, StateExit::kInternal};
constexpr ValidationStateRow kStateInterrupted{true, false, StateExit::kInterrupted};
// The scheduler took the nodes back: nothing judged the hardware, and the
// nodes stay due for the sentinel.
constexpr ValidationStateRow kStatePreempted{true, false, StateExit::kInterrupted};
constexpr ValidationStateRow kStateUnspecified{false, false, StateExit::kInternal};

}  // namespace

const ValidationStateRow& RowOf(v1::ValidationState state) {
  switch (state) {
    case v1::VALIDATION_STATE_RUNNING:
      return kStateRunning;
    case v1::VALIDATION_STATE_DONE:
      return kStateDone;
    case v1::VALIDATION_STATE_CANCELLED:
      return kStateCancelled;
    case v1::VALIDATION_STATE_TIMED_OUT:
      return kStateTimedOut;
    case v1::VALIDATION_STATE_FAILED:
      return kStateFailed;
    case v1::VALIDATION_STATE_INTERRUPTED:
      return kStateInterrupted;
    case v1::VALIDATION_STATE_PREEMPTED:
      return kStatePreempted;
    case v1::VALIDATION_STATE_UNSPECIFIED:
      return kStateUnspecified;
    case EB_WIRE_ENUM_SENTINELS(v1::ValidationState):
      break;
  }
  return kStateFailed;
}

}  // namespace eb::spec
