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
// NCCL only). `nccl`: the fleet's tests run NCCL (the runner asks
// SelectTransport of every node). On Gloo only the baselines' gloo_pairs
// (a site's own figures) are used, the NCCL figures only on NCCL, and the
// sweep without -b/-e is Gloo's (SizePolicyFor).
absl::StatusOr<Options> OptionsFromSpec(const ebnccl::v1::ValidationSpec& spec,
                                        BaselineTable baselines, bool nccl);

// At which sizes the tests run (graded_size.h): the user's sweep when the spec
// has one (max_bytes > 0), else from the plateau: NCCL sweeps 1M..1G in the
// intra round (raised to a baseline's size), Gloo 256K..64M, whose TCP
// plateau is reached within a few MiB. Calls per size: the spec's when
// iterations > 0, else enough for 1 GiB per rail.
SizePolicy SizePolicyFor(const ebnccl::v1::ValidationSpec& spec, bool nccl);

// The test to run for `planned`: every slot of each of its nodes, the
// spec's sweep, collective, transport and deadlines. The planned NCCL
// environment (NCCL_ALGO=Ring for pairs) is set only when the test will run
// NCCL (`nccl` true): Gloo has no such setting and refuses nccl_env. So is
// split_rails (planned for pairs): a rail is a GPU and its NIC.
ebnccl::v1::TestSpec TestSpecFor(const PlannedTest& planned, const ebnccl::v1::ValidationSpec& spec,
                                 bool nccl);

}  // namespace eb::validation
