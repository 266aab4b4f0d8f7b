#include "coordinator/core/collective_tests/spec_validator.h"

#include <cmath>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/spec/identifiers.h"
#include "common/spec/limits.h"
#include "common/spec/names.h"
#include "common/spec/nccl_env.h"
#include "common/spec/numbers.h"
#include "common/spec/proto_enums.h"
#include "common/status/status_macros.h"
#include "common/transport/collective_layout.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

namespace {

absl::Status Invalid(absl::string_view field, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", why));
}

// 0 is unset (the coordinator's default); anything else within the range
// every agent accepts (spec::kTimeoutRange), so that a test is refused here,
// naming the field, rather than by every agent, blaming a node (P2-2.7).
absl::Status CheckDeadline(absl::string_view field, int64_t value_ms) {
  if (value_ms == 0) return absl::OkStatus();
  return spec::CheckDurationMs(value_ms, field, spec::kTimeoutRange);
}

int64_t OrDefault(int64_t value_ms, absl::Duration fallback) {
  return value_ms != 0 ? value_ms : absl::ToInt64Milliseconds(fallback);
}

// A list of collectives: each known, none twice; `collective` is its
// first; a list of one is the plain one-collective test.
absl::Status NormalizeCollectiveList(v1::TestSpec& spec) {
  if (spec.collectives_size() == 0) return absl::OkStatus();
  std::set<int> listed;
  for (int c : spec.collectives()) {
    const auto collective = static_cast<v1::Collective>(c);
    if (collective == v1::COLLECTIVE_UNSPECIFIED || !v1::Collective_IsValid(c)) {
      return Invalid("collectives", absl::StrCat("unknown collective ", c));
    }
    if (auto status = spec::ToTransport(collective).status(); !status.ok()) return status;
    if (!listed.insert(c).second) {
      return Invalid("collectives",
                     absl::StrCat(spec::DisplayName(collective), " is listed twice"));
    }
  }
  if (spec.collective() != v1::COLLECTIVE_UNSPECIFIED && spec.collective() != spec.collectives(0)) {
    return Invalid("collective", "must be the first of collectives when both are set");
  }
  spec.set_collective(static_cast<v1::Collective>(spec.collectives(0)));
  if (spec.collectives_size() == 1) spec.clear_collectives();
  return absl::OkStatus();
}

// How the sweep is run and measured: rails, per-iteration timing, the
// nccl-tests -a mode.
absl::Status CheckRunModes(const v1::TestSpec& spec) {
  if (spec.collectives_size() > 1 && spec.split_rails()) {
    return Invalid("split_rails", "runs one collective; give --collective a single name");
  }
  if (spec.per_iter_timing() && spec.cuda_graph_launches() > 0) {
    return Invalid("per_iter_timing",
                   "cannot time iterations of a CUDA graph (-G), as in nccl-tests");
  }
  if (spec.has_average() && (spec.average() < 0 || spec.average() > 3)) {
    return Invalid("average", absl::StrCat("must be 0, 1, 2 or 3, got ", spec.average()));
  }
  return absl::OkStatus();
}

// The collective, its element type and reduction, and the transport: set
// (defaults filled in) and known to the transports.
absl::Status NormalizeOperation(v1::TestSpec& spec) {
  if (spec.collective() == v1::COLLECTIVE_UNSPECIFIED) {
    return Invalid("collective",
                   "must be set (all_reduce, all_gather, reduce_scatter, "
                   "broadcast, reduce, alltoall, sendrecv)");
  }
  if (auto status = spec::ToTransport(spec.collective()).status(); !status.ok()) return status;
  if (spec.data_type() == v1::DATA_TYPE_UNSPECIFIED) spec.set_data_type(v1::DATA_TYPE_FLOAT);
  if (auto status = spec::ToTransport(spec.data_type()).status(); !status.ok()) return status;
  if (spec.reduce_op() == v1::REDUCE_OP_UNSPECIFIED) spec.set_reduce_op(v1::REDUCE_OP_SUM);
  if (auto status = spec::ToTransport(spec.reduce_op()).status(); !status.ok()) return status;
  if (spec.transport() == v1::TRANSPORT_UNSPECIFIED) spec.set_transport(v1::TRANSPORT_AUTO);
  if (!v1::Transport_IsValid(spec.transport())) {
    return Invalid("transport", absl::StrCat("unknown enum value ", spec.transport()));
  }
  return absl::OkStatus();
}

// The one computation and check of the sweep: negative values, max below
// min, sweeps that never end or are absurdly long, naming the field. The
// sizes go to the caller, which lays them out over the test's ranks;
// workers run that list.
absl::StatusOr<std::vector<int64_t>> CheckedSweepSizes(const v1::TestSpec& spec) {
  absl::StatusOr<std::vector<int64_t>> sizes = transport::SweepSizes(
      spec.min_bytes(), spec.max_bytes(), spec.step_factor(), spec.step_bytes());
  if (!sizes.ok()) return sizes.status();
  // Unused by a geometric sweep, so SweepSizes lets it pass.
  if (spec.step_bytes() < 0) {
    return Invalid("step_bytes", absl::StrCat("must be >= 0, got ", spec.step_bytes()));
  }
  return sizes;
}

// Counts and thresholds that cannot be negative; those that depend on the
// placement (root_rank < world size) are checked once it is known.
absl::Status CheckSpecCounts(const v1::TestSpec& spec) {
  if (spec.iterations() < 1) {
    return Invalid("iterations", absl::StrCat("must be >= 1, got ", spec.iterations()));
  }
  const std::pair<const char*, int64_t> non_negative[] = {
      {"warmup_iterations", spec.warmup_iterations()},
      {"check_iterations", spec.check_iterations()},
      {"cuda_graph_launches", spec.cuda_graph_launches()},
      {"root_rank", spec.root_rank()},
      {"workers_per_node", spec.workers_per_node()}};
  for (const auto& [field, value] : non_negative) {
    if (value < 0) return Invalid(field, absl::StrCat("must be >= 0, got ", value));
  }
  if (!std::isfinite(spec.min_busbw_gbps()) || spec.min_busbw_gbps() < 0) {
    return Invalid("min_busbw_gbps", absl::StrCat("must be >= 0, got ", spec.min_busbw_gbps()));
  }
  return absl::OkStatus();
}

absl::Status CheckSpecNodeNames(const v1::TestSpec& spec) {
  if (spec.node_names_size() > spec::kMaxNodeNamesInRequest) {
    return Invalid("node_names", absl::StrCat(spec.node_names_size(), " names, at most ",
                                              spec::kMaxNodeNamesInRequest, " in one test"));
  }
  std::set<std::string> seen;
  for (const std::string& node : spec.node_names()) {
    if (node.empty()) return Invalid("node_names", "contains an empty name");
    EB_RETURN_IF_ERROR(spec::CheckNodeName(node, "node_names"));
    if (!seen.insert(node).second) {
      return Invalid("node_names", absl::StrCat("'", node, "' is listed twice"));
    }
  }
  return absl::OkStatus();
}

// Each deadline: >= 0, and 0 (unset) replaced by the coordinator's default.
absl::Status NormalizeDeadlines(const CoordinatorConfig& config, v1::TestSpec& spec) {
  for (auto [field, value] : {std::pair<const char*, int64_t>{"timeout_ms", spec.timeout_ms()},
                              {"launch_timeout_ms", spec.launch_timeout_ms()},
                              {"init_timeout_ms", spec.init_timeout_ms()},
                              {"step_timeout_ms", spec.step_timeout_ms()}}) {
    if (auto status = CheckDeadline(field, value); !status.ok()) return status;
  }
  spec.set_timeout_ms(OrDefault(spec.timeout_ms(), config.default_test_timeout));
  spec.set_launch_timeout_ms(OrDefault(spec.launch_timeout_ms(), config.default_launch_timeout));
  spec.set_init_timeout_ms(OrDefault(spec.init_timeout_ms(), config.default_init_timeout));
  spec.set_step_timeout_ms(OrDefault(spec.step_timeout_ms(), config.default_step_timeout));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::TestSpec> ValidateAndNormalize(const v1::TestSpec& input,
                                                  const CoordinatorConfig& config,
                                                  std::vector<int64_t>* sweep_sizes) {
  v1::TestSpec spec = input;
  // A spec with several errors is refused for the first step that finds
  // one: the order is part of what callers see.
  EB_RETURN_IF_ERROR(NormalizeCollectiveList(spec));
  EB_RETURN_IF_ERROR(CheckRunModes(spec));
  EB_RETURN_IF_ERROR(NormalizeOperation(spec));
  EB_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, CheckedSweepSizes(spec));
  EB_RETURN_IF_ERROR(CheckSpecCounts(spec));
  if (absl::Status env = spec::CheckNcclEnv({spec.nccl_env().begin(), spec.nccl_env().end()});
      !env.ok()) {
    return env;
  }
  EB_RETURN_IF_ERROR(CheckSpecNodeNames(spec));
  EB_RETURN_IF_ERROR(NormalizeDeadlines(config, spec));
  if (sweep_sizes != nullptr) *sweep_sizes = std::move(sizes);
  return spec;
}

}  // namespace eb::coordinator
