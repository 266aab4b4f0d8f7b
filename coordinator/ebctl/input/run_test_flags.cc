#include "coordinator/ebctl/input/run_test_flags.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/spec/names.h"
#include "coordinator/ebctl/input/cli_checks.h"
#include "coordinator/ebctl/input/duration_parse.h"
#include "coordinator/ebctl/input/size_parse.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

namespace {

// main() lets CLI11 accept only auto, gloo and nccl.
v1::Transport ToTransportEnum(const std::string& name) {
  if (name == "gloo") return v1::TRANSPORT_GLOO;
  if (name == "nccl") return v1::TRANSPORT_NCCL;
  return v1::TRANSPORT_AUTO;
}

}  // namespace

absl::StatusOr<v1::TestSpec> BuildSpec(const RunTestFlags& flags) {
  v1::TestSpec spec;
  const std::string collective_text =
      flags.collective == "all" ? spec::CollectiveNames(",") : flags.collective;
  if (collective_text.find(',') == std::string::npos) {
    // One name: exactly the one-collective test.
    auto collective = spec::ParseCollective(collective_text, "--collective");
    if (!collective.ok()) return collective.status();
    spec.set_collective(*collective);
  } else {
    for (absl::string_view name : absl::StrSplit(collective_text, ',')) {
      auto collective = spec::ParseCollective(name, "--collective");
      if (!collective.ok()) return collective.status();
      for (int listed : spec.collectives()) {
        if (listed == *collective) {
          return absl::InvalidArgumentError(
              absl::StrCat("--collective: ", spec::DisplayName(*collective), " is listed twice"));
        }
      }
      spec.add_collectives(*collective);
    }
    spec.set_collective(static_cast<v1::Collective>(spec.collectives(0)));
  }
  auto type = spec::ParseDataType(flags.data_type, "-d/--datatype");
  if (!type.ok()) return type.status();
  spec.set_data_type(*type);
  auto op = spec::ParseReduceOp(flags.reduce_op, "-o/--op");
  if (!op.ok()) return op.status();
  spec.set_reduce_op(*op);
  auto min_bytes = ParseSize(flags.min_bytes, "-b/--minbytes");
  if (!min_bytes.ok()) return min_bytes.status();
  auto max_bytes = ParseSize(flags.max_bytes, "-e/--maxbytes");
  if (!max_bytes.ok()) return max_bytes.status();
  auto step_bytes = ParseSize(flags.step_bytes, "-i/--stepbytes");
  if (!step_bytes.ok()) return step_bytes.status();
  if (*max_bytes < *min_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "-e/--maxbytes: ", flags.max_bytes, " is smaller than -b/--minbytes ", flags.min_bytes));
  }
  if (flags.step_factor < 0) {
    return absl::InvalidArgumentError("-f/--stepfactor: must be >= 2 (or 0 to use -i)");
  }
  if (flags.iterations < 1) return absl::InvalidArgumentError("-n/--iters: must be >= 1");
  if (flags.warmup_iterations < 0)
    return absl::InvalidArgumentError("-w/--warmup_iters: must be >= 0");
  if (flags.check_iterations < 0) return absl::InvalidArgumentError("-c/--check: must be >= 0");
  if (flags.root < 0) return absl::InvalidArgumentError("-r/--root: must be >= 0");
  if (flags.workers_per_node < 0) {
    return absl::InvalidArgumentError("--workers-per-node: must be >= 0");
  }
  if (flags.min_busbw_gbps < 0) return absl::InvalidArgumentError("--min-busbw: must be >= 0");
  spec.set_min_bytes(*min_bytes);
  spec.set_max_bytes(*max_bytes);
  spec.set_step_factor(flags.step_factor);
  spec.set_step_bytes(*step_bytes);
  spec.set_iterations(flags.iterations);
  spec.set_warmup_iterations(flags.warmup_iterations);
  spec.set_check_iterations(flags.check_iterations);
  spec.set_root_rank(flags.root);
  spec.set_transport(ToTransportEnum(flags.transport));
  spec.set_workers_per_node(flags.workers_per_node);
  spec.set_min_busbw_gbps(flags.min_busbw_gbps);
  if (flags.nodes_given || !flags.nodes.empty()) {
    absl::StatusOr<std::vector<std::string>> nodes = ParseNodeList(flags.nodes, "--nodes");
    if (!nodes.ok()) return nodes.status();
    for (std::string& node : *nodes) spec.add_node_names(std::move(node));
  }
  const std::pair<const std::string*, const char*> timeouts[] = {
      {&flags.timeout, "--timeout"},
      {&flags.launch_timeout, "--launch-timeout"},
      {&flags.init_timeout, "--init-timeout"},
      {&flags.step_timeout, "--step-timeout"}};
  int64_t values[4] = {};
  for (int i = 0; i < 4; ++i) {
    auto ms = ParseTimeoutMs(*timeouts[i].first, timeouts[i].second);
    if (!ms.ok()) return ms.status();
    values[i] = *ms;
  }
  for (const std::string& entry : flags.nccl_env) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(absl::StrCat("--nccl-env: '", entry, "' is not KEY=VALUE"));
    }
    (*spec.mutable_nccl_env())[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  if (flags.cuda_graph < 0) return absl::InvalidArgumentError("-G/--cudagraph: must be >= 0");
  spec.set_cuda_graph_launches(flags.cuda_graph);
  spec.set_split_rails(flags.split_rails);
  spec.set_allow_drift(flags.allow_drift);
  if (flags.per_iter_timing != 0 && flags.per_iter_timing != 1) {
    return absl::InvalidArgumentError("-I/--per_iter_timing: must be 0 or 1");
  }
  if (flags.per_iter_timing == 1 && flags.cuda_graph > 0) {
    return absl::InvalidArgumentError(
        "-I/--per_iter_timing: cannot time the iterations of a CUDA graph (-G), as in "
        "nccl-tests");
  }
  spec.set_per_iter_timing(flags.per_iter_timing == 1);
  if (flags.average_given) {
    if (flags.average < 0 || flags.average > 3) {
      return absl::InvalidArgumentError(
          "-a/--average: must be 0 (rank 0), 1 (average), 2 (min) or 3 (max)");
    }
    spec.set_average(flags.average);
  }
  if (flags.timeout_seconds < 0) {
    return absl::InvalidArgumentError("-T/--timeout_s: must be >= 0 seconds");
  }
  if (flags.timeout_seconds > 0) {
    if (!flags.step_timeout.empty()) {
      return absl::InvalidArgumentError(
          "-T/--timeout_s: sets the step deadline; give it or --step-timeout, not both");
    }
    values[3] = int64_t{flags.timeout_seconds} * 1000;
  }
  spec.set_timeout_ms(values[0]);
  spec.set_launch_timeout_ms(values[1]);
  spec.set_init_timeout_ms(values[2]);
  spec.set_step_timeout_ms(values[3]);
  return spec;
}

}  // namespace eb::ebctl
