#pragma once

// The validation's edge on the wire: a ValidationSpec checked and turned
// into the core's Options, and a planned test turned into the TestSpec the
// coordinator runs. Pure.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "coordinator/validation/fleet.h"
#include "coordinator/validation/plan.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::validation {

// The most baselines text a request may carry (a real file is ~4 KiB).
inline constexpr size_t kMaxBaselinesTomlBytes = 64 * 1024;

// Fills the defaults of `spec` (suites, strategy, tolerance, collective) and
// checks its fields: INVALID_ARGUMENT naming the field (suites, strategy,
// tolerance, baselines_toml size, negative sizes or deadlines).
absl::Status NormalizeValidationSpec(ebnccl::v1::ValidationSpec& spec);

// Options for the core from a normalized spec and the baselines to use.
// Pair tests are split per rail (split_rails; TestSpecFor asks for it on
// NCCL only).
absl::StatusOr<Options> OptionsFromSpec(const ebnccl::v1::ValidationSpec& spec,
                                        BaselineTable baselines);

// The test to run for `planned`: every slot of each of its nodes, the
// spec's sweep, collective, transport and deadlines. The planned NCCL
// environment (NCCL_ALGO=Ring for pairs) is set only when the test will run
// NCCL (`nccl` true): Gloo has no such setting and refuses nccl_env. So is
// split_rails (planned for pairs): a rail is a GPU and its NIC.
ebnccl::v1::TestSpec TestSpecFor(const PlannedTest& planned, const ebnccl::v1::ValidationSpec& spec,
                                 bool nccl);

}  // namespace eb::validation
