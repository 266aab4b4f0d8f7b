#include "coordinator/ebctl/input/validate_flags.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/spec/byte_size.h"
#include "common/spec/graded_floor.h"
#include "common/spec/wire_names.h"
#include "coordinator/ebctl/input/duration_parse.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

int64_t MinGradedBytes(v1::Transport transport) {
  return transport == v1::TRANSPORT_GLOO ? spec::kGlooGradedFloorBytes
                                         : spec::kNcclGradedFloorBytes;
}

absl::StatusOr<v1::ValidationSpec> BuildValidationSpec(const ValidateFlags& flags,
                                                       const std::string& baselines_text) {
  absl::StatusOr<v1::TestSpec> test = BuildSpec(flags.test);
  if (!test.ok()) return test.status();
  // A ValidationSpec has one collective: the planner would run the list's
  // first and say nothing of the others (issue 33 item 1).
  if (test->collectives_size() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--collective: validate grades one collective per validation, got ",
                     test->collectives_size(), " (", flags.test.collective,
                     "); run one validation per collective (run-test takes a list)"));
  }
  if (flags.sweep_given && !flags.allow_small_sizes &&
      test->max_bytes() < MinGradedBytes(test->transport())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "-e/--maxbytes: the graded size ", spec::FormatSize(test->max_bytes()), " is below ",
        spec::FormatSize(MinGradedBytes(test->transport())),
        test->transport() == v1::TRANSPORT_GLOO ? " (Gloo)" : " (NCCL; 256K on Gloo)",
        ", where busbw measures latency, not the links; give a larger -e, leave -b/-e out "
        "(each test at its plateau), or add --allow-small-sizes to grade it anyway"));
  }
  if (!(flags.tolerance > 0 && flags.tolerance <= 0.5)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tolerance: must be in (0, 0.5], got ", flags.tolerance));
  }
  absl::StatusOr<int64_t> timeout_ms = ParseTimeoutMs(flags.timeout, "--validation-timeout");
  if (!timeout_ms.ok()) return timeout_ms.status();
  absl::StatusOr<int64_t> soak_ms = ParseTimeoutMs(flags.soak, "--soak");
  if (!soak_ms.ok()) return soak_ms.status();
  v1::ValidationSpec spec;
  for (const std::string& node : test->node_names()) spec.add_node_names(node);
  for (absl::string_view word : absl::StrSplit(flags.suites, ',', absl::SkipWhitespace())) {
    absl::StatusOr<v1::Suite> suite = spec::ParseWireName<v1::Suite>(word, "--suite");
    if (!suite.ok()) return suite.status();
    spec.add_suites(*suite);
  }
  spec.set_strategy(flags.strategy);
  spec.set_tolerance(flags.tolerance);
  spec.set_collective(test->collective());
  // 0: the coordinator picks each test's size (its plateau).
  spec.set_min_bytes(flags.sweep_given ? test->min_bytes() : 0);
  spec.set_max_bytes(flags.sweep_given ? test->max_bytes() : 0);
  // A ValidationSpec has no additive step (the largest size is the one
  // graded): without -f the sweep doubles.
  spec.set_step_factor(test->step_factor() > 0 ? test->step_factor() : 2);
  spec.set_iterations(flags.iterations_given ? test->iterations() : 0);
  spec.set_warmup_iterations(test->warmup_iterations());
  spec.set_check_iterations(test->check_iterations());
  spec.set_transport(test->transport());
  spec.set_test_timeout_ms(test->timeout_ms());
  spec.set_launch_timeout_ms(test->launch_timeout_ms());
  spec.set_init_timeout_ms(test->init_timeout_ms());
  spec.set_step_timeout_ms(test->step_timeout_ms());
  spec.set_timeout_ms(*timeout_ms);
  spec.set_soak_ms(*soak_ms);
  spec.set_baselines_toml(baselines_text);
  return spec;
}

}  // namespace eb::ebctl
