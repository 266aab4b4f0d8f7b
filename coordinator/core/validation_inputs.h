#pragma once

// From a ValidationSpec and the node registry to what the pure validation
// core takes (eb::validation::Node, Options), and from a planned test back
// to the TestSpec the TestManager runs. Pure.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "coordinator/core/node_registry.h"
#include "coordinator/validation/fleet.h"
#include "coordinator/validation/plan.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

// The most baselines text a request may carry (a real file is ~4 KiB).
inline constexpr size_t kMaxBaselinesTomlBytes = 64 * 1024;

// Fills the defaults of `spec` (suites, strategy, tolerance, collective) and
// checks its fields: INVALID_ARGUMENT naming the field (suites, strategy,
// tolerance, baselines_toml size, negative sizes or deadlines).
absl::Status NormalizeValidationSpec(ebnccl::v1::ValidationSpec& spec);

// Options for the core from a normalized spec and the baselines to use.
// Pair tests are not split per rail: the test machinery runs one
// communicator per test, so a pair gives one aggregate busbw.
absl::StatusOr<validation::Options> OptionsFromSpec(const ebnccl::v1::ValidationSpec& spec,
                                                    validation::BaselineTable baselines);

// One registry record as the core's node (unreachable when lost).
validation::Node NodeFromRecord(const NodeRecord& record);

// The test to run for `planned`: every slot of each of its nodes, the
// spec's sweep, collective, transport and deadlines. The planned NCCL
// environment (NCCL_ALGO=Ring for pairs) is set only when the test will run
// NCCL (`nccl` true): Gloo has no such setting and refuses nccl_env. So is
// split_rails (planned for pairs): a rail is a GPU and its NIC.
ebnccl::v1::TestSpec TestSpecFor(const validation::PlannedTest& planned,
                                 const ebnccl::v1::ValidationSpec& spec, bool nccl);

}  // namespace eb::coordinator
