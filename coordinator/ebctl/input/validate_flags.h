#pragma once

// The flags of `ebctl validate` as typed, and their translation into the
// ValidationSpec the coordinator runs. The sweep flags are run-test's (same
// names, defaults and checks). Pure: the caller reads --baselines' file.

#include <string>

#include "absl/status/statusor.h"
#include "coordinator/ebctl/input/run_test_flags.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::ebctl {

struct ValidateFlags {
  // Sweep, collective, nodes, transport and per-test deadlines (the other
  // run-test flags are not offered by `validate`).
  RunTestFlags test;
  std::string suites;    // "preflight,intra,pairs[,fleet]"; "" = the default
  std::string strategy;  // "adaptive" or "all-pairs"; "" = adaptive
  double tolerance = 0.10;
  std::string baselines;  // a TOML file; "" = the coordinator's
  std::string timeout;    // of the whole validation; "" = the coordinator's
  std::string soak;       // repeat pair tests for this long after the pairs; "" = none
  bool detach = false;    // print the id and return
  // --allow-small-sizes: grade a -e below MinGradedBytes (latency-bound).
  bool allow_small_sizes = false;
  // Whether -b/--minbytes or -e/--maxbytes, and -n/--iters, were given.
  // Without a size, each test runs at its plateau; without -n, enough calls
  // for 1 GiB per rail (docs/VALIDATION.md, "How much is measured").
  bool sweep_given = false;
  bool iterations_given = false;
};

// The smallest -e/--maxbytes `validate` grades without --allow-small-sizes:
// below it busbw measures latency, not the links (issue 33 item 4). The
// floors are the ones the validation's own sweeps start at
// (common/spec/graded_floor.h): 1 MiB for NCCL, 256 KiB for Gloo; `auto` may
// mean NCCL, so it takes NCCL's.
int64_t MinGradedBytes(ebnccl::v1::Transport transport);

// INVALID_ARGUMENT naming the flag: also for a list of collectives (a
// validation grades one collective; run one validation per collective) and
// for a graded size below MinGradedBytes without --allow-small-sizes. `baselines_text` is the
// content of
// --baselines' file ("" for none).
absl::StatusOr<ebnccl::v1::ValidationSpec> BuildValidationSpec(const ValidateFlags& flags,
                                                               const std::string& baselines_text);

}  // namespace eb::ebctl
