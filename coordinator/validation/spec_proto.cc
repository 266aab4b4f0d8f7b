#include "coordinator/validation/spec_proto.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/spec/graded_floor.h"
#include "common/spec/numbers.h"

namespace eb::validation {

namespace v1 = ebnccl::v1;

namespace {

absl::Status NonNegative(int64_t value, const char* field) {
  if (value >= 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(field, ": must not be negative (", value, ")"));
}

// The spec's suites as the core's; INVALID_ARGUMENT naming a value this
// build does not know (a newer client).
absl::StatusOr<std::vector<Suite>> SuitesOf(const v1::ValidationSpec& spec) {
  std::vector<Suite> suites;
  for (int wire : spec.suites()) {
    if (wire <= v1::SUITE_UNSPECIFIED || wire > v1::Suite_MAX) {
      return absl::InvalidArgumentError(absl::StrCat("suites: unknown suite ", wire));
    }
    const auto suite = static_cast<Suite>(wire);
    if (std::find(suites.begin(), suites.end(), suite) == suites.end()) suites.push_back(suite);
  }
  return suites;
}

}  // namespace

absl::Status NormalizeValidationSpec(v1::ValidationSpec& spec) {
  if (spec.suites().empty()) {
    for (v1::Suite suite : {v1::SUITE_PREFLIGHT, v1::SUITE_INTRA, v1::SUITE_PAIRS}) {
      spec.add_suites(suite);
    }
  }
  absl::StatusOr<std::vector<Suite>> suites = SuitesOf(spec);
  if (!suites.ok()) return suites.status();
  if (spec.strategy().empty()) spec.set_strategy("adaptive");
  if (absl::StatusOr<Strategy> s = ParseStrategy(spec.strategy()); !s.ok()) {
    return s.status();
  }
  if (spec.tolerance() == 0) spec.set_tolerance(0.10);
  if (!(spec.tolerance() > 0 && spec.tolerance() <= 0.5)) {
    return absl::InvalidArgumentError(
        absl::StrCat("tolerance: must be in (0, 0.5], got ", spec.tolerance()));
  }
  if (spec.collective() == v1::COLLECTIVE_UNSPECIFIED) {
    spec.set_collective(v1::COLLECTIVE_ALL_REDUCE);
  }
  if (spec.baselines_toml().size() > kMaxBaselinesTomlBytes) {
    return absl::InvalidArgumentError(absl::StrCat("baselines_toml: ", spec.baselines_toml().size(),
                                                   " bytes, at most ", kMaxBaselinesTomlBytes));
  }
  for (const auto& [value, field] :
       std::vector<std::pair<int64_t, const char*>>{{spec.min_bytes(), "min_bytes"},
                                                    {spec.max_bytes(), "max_bytes"},
                                                    {spec.step_factor(), "step_factor"},
                                                    {spec.iterations(), "iterations"},
                                                    {spec.warmup_iterations(), "warmup_iterations"},
                                                    {spec.check_iterations(), "check_iterations"},
                                                    {spec.test_timeout_ms(), "test_timeout_ms"},
                                                    {spec.launch_timeout_ms(), "launch_timeout_ms"},
                                                    {spec.init_timeout_ms(), "init_timeout_ms"},
                                                    {spec.step_timeout_ms(), "step_timeout_ms"},
                                                    {spec.timeout_ms(), "timeout_ms"},
                                                    {spec.soak_ms(), "soak_ms"}}) {
    if (absl::Status status = NonNegative(value, field); !status.ok()) return status;
  }
  // Deadlines: 0 (the default) or within the range every agent accepts
  // (spec::kTimeoutRange), refused here rather than by the agents (P2-2.7).
  for (const auto& [value, field] :
       std::vector<std::pair<int64_t, const char*>>{{spec.test_timeout_ms(), "test_timeout_ms"},
                                                    {spec.launch_timeout_ms(), "launch_timeout_ms"},
                                                    {spec.init_timeout_ms(), "init_timeout_ms"},
                                                    {spec.step_timeout_ms(), "step_timeout_ms"},
                                                    {spec.timeout_ms(), "timeout_ms"}}) {
    if (value == 0) continue;
    if (absl::Status status = eb::spec::CheckDurationMs(value, field, eb::spec::kTimeoutRange);
        !status.ok()) {
      return status;
    }
  }
  if (spec.timeout_ms() > 0 && spec.soak_ms() >= spec.timeout_ms()) {
    return absl::InvalidArgumentError(absl::StrCat("soak_ms: ", spec.soak_ms(),
                                                   " is not less than the validation's timeout_ms ",
                                                   spec.timeout_ms()));
  }
  // max_bytes 0 asks for each test at its plateau: a lone min_bytes would
  // be silently ignored.
  if (spec.max_bytes() == 0 && spec.min_bytes() > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_bytes: 0 (each test at its plateau) with min_bytes ", spec.min_bytes(),
                     "; give both or neither"));
  }
  if (spec.max_bytes() < spec.min_bytes()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_bytes: ", spec.max_bytes(), " is smaller than min_bytes ", spec.min_bytes()));
  }
  return absl::OkStatus();
}

SizePolicy SizePolicyFor(const v1::ValidationSpec& spec, bool nccl) {
  SizePolicy policy;
  policy.user_sweep = spec.max_bytes() > 0;
  policy.user_max_bytes = spec.max_bytes();
  policy.user_iterations = spec.iterations() > 0;
  if (!nccl) {
    policy.sweep_min_bytes = spec::kGlooGradedFloorBytes;
    policy.sweep_max_bytes = int64_t{64} << 20;
  }
  return policy;
}

absl::StatusOr<Options> OptionsFromSpec(const v1::ValidationSpec& spec, BaselineTable baselines,
                                        bool nccl) {
  Options options;
  absl::StatusOr<std::vector<Suite>> suites = SuitesOf(spec);
  if (!suites.ok()) return suites.status();
  absl::StatusOr<Strategy> strategy = ParseStrategy(spec.strategy());
  if (!strategy.ok()) return strategy.status();
  options.suites = *std::move(suites);
  options.strategy = *strategy;
  options.tolerance = spec.tolerance();
  // Each data plane is judged by its own figures: NCCL's (intra, pairs by
  // HCA) or a site's Gloo figures (gloo_pairs by link speed).
  options.gloo = !nccl;
  if (nccl) {
    baselines.gloo_pairs.clear();
  } else {
    baselines.intra.clear();
    baselines.pairs.clear();
  }
  options.baselines = std::move(baselines);
  options.collective = spec.collective();
  options.sizes = SizePolicyFor(spec, nccl);
  options.soak = spec.soak_ms() > 0;
  // Pair tests split rails (TestSpecFor), so that a slow pair names its
  // rail; the workers run the split since issue 12.
  options.split_rails = true;
  return options;
}

v1::TestSpec TestSpecFor(const PlannedTest& planned, const v1::ValidationSpec& spec, bool nccl) {
  v1::TestSpec test;
  test.set_collective(spec.collective());
  // The planned sizes (from the plateau) unless the user gave a sweep.
  test.set_min_bytes(planned.max_bytes > 0 ? planned.min_bytes : spec.min_bytes());
  test.set_max_bytes(planned.max_bytes > 0 ? planned.max_bytes : spec.max_bytes());
  test.set_step_factor(planned.max_bytes > 0 ? 2 : spec.step_factor());
  test.set_iterations(planned.iterations > 0 ? planned.iterations : spec.iterations());
  test.set_warmup_iterations(spec.warmup_iterations());
  test.set_check_iterations(spec.check_iterations());
  test.set_transport(spec.transport());
  for (const std::string& node : planned.nodes) test.add_node_names(node);
  test.set_workers_per_node(0);  // every slot: all GPUs of each node
  test.set_timeout_ms(spec.test_timeout_ms());
  test.set_launch_timeout_ms(spec.launch_timeout_ms());
  test.set_init_timeout_ms(spec.init_timeout_ms());
  test.set_step_timeout_ms(spec.step_timeout_ms());
  // One busbw per rail from the same test (the planner asks for it in pair
  // tests): a slow pair names its rail. A rail is a GPU and its NIC, so only
  // on NCCL: Gloo slots have no GPU, and the validation counts rails in GPUs.
  test.set_split_rails(planned.split_rails && nccl);
  // In a validation the preflight suite judges the nodes' inventories on
  // every fact run-test's drift check does (inventory_facts.h), and unfit
  // nodes are never tested. A difference among fit nodes (preflight not in
  // --suite, or an agent that re-registered since) is kept as the test's
  // drift warning rather than refusing the test, which would leave a fit
  // pair untestable.
  test.set_allow_drift(true);
  if (nccl) {
    for (const auto& [key, value] : planned.nccl_env) (*test.mutable_nccl_env())[key] = value;
  }
  return test;
}

}  // namespace eb::validation
