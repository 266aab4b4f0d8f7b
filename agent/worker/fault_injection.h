#pragma once

// Faults a worker can be told to simulate, so that the failure handling of
// the whole system is tested with real processes. Set through the worker's
// environment (EB_WORKER_FAULT, e.g. via the agent's --worker-env), never by
// a test spec, so a production request cannot trigger one.
//
// Syntax: MODE[=SIZE_INDEX][:rank=R]; without `rank` every rank is affected.
//   hang_before_register   never register with the agent
//   hang_before_join       register, then never join the communicator
//   exit_before_join       register, then exit with code 1
//   crash_at_size=K        abort() when size index K starts
//   corrupt_at_size=K      report one wrong element at size index K
//   slow=MS                sleep MS ms before each timed collective call (a
//                          slow GPU or NIC, for the validation's tests); with
//                          :rank=R the "slow rank" of straggler attribution:
//                          rank R arrives MS ms late at every timed call, of
//                          the full communicator and of its rail (split_rails)
//   log_flood              log as fast as it can (100000 lines) before
//                          registering, then hang: a worker inside spdlog
//                          when it is stopped (issue 16's deadlock)
//   segv_before_register   raise SIGSEGV on the main thread before
//                          registering, as a fault in its own code would: the
//                          crash the failure handler must still report

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace eb::worker {

struct FaultInjection {
  enum class Mode {
    kNone,
    kHangBeforeRegister,
    kHangBeforeJoin,
    kExitBeforeJoin,
    kCrashAtSize,
    kCorruptAtSize,
    kSlow,
    kLogFlood,
    kSegvBeforeRegister,
  };
  Mode mode = Mode::kNone;
  int size_index = 0;
  // kSlow: the delay before each timed call, milliseconds.
  int slow_ms = 0;
  // -1: every rank.
  int rank = -1;

  bool AppliesTo(int my_rank) const { return mode != Mode::kNone && (rank < 0 || rank == my_rank); }
};

// Parses the syntax above ("" is no fault). INVALID_ARGUMENT naming
// EB_WORKER_FAULT otherwise.
absl::StatusOr<FaultInjection> ParseFaultInjection(absl::string_view text);

}  // namespace eb::worker
