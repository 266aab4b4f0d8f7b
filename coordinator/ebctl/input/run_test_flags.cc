#include "coordinator/ebctl/input/run_test_flags.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/spec/byte_size.h"
#include "common/spec/names.h"
#include "common/status/status_macros.h"
#include "coordinator/ebctl/input/cli_checks.h"
#include "coordinator/ebctl/input/duration_parse.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

namespace {

// main() lets CLI11 accept only auto, gloo and nccl.
v1::Transport ToTransportEnum(const std::string& name) {
  if (name == "gloo") return v1::TRANSPORT_GLOO;
  if (name == "nccl") return v1::TRANSPORT_NCCL;
  return v1::TRANSPORT_AUTO;
}

// --collective: one name is exactly the one-collective test; a list (or
// `all`) runs each in turn, none twice, `collective` being its first.
absl::Status AddCollectives(const RunTestFlags& flags, v1::TestSpec& spec) {
  const std::string collective_text =
      flags.collective == "all" ? spec::CollectiveNames(",") : flags.collective;
  if (collective_text.find(',') == std::string::npos) {
    EB_ASSIGN_OR_RETURN(const v1::Collective collective,
                        spec::ParseCollective(collective_text, "--collective"));
    spec.set_collective(collective);
    return absl::OkStatus();
  }
  for (absl::string_view name : absl::StrSplit(collective_text, ',')) {
    EB_ASSIGN_OR_RETURN(const v1::Collective collective,
                        spec::ParseCollective(name, "--collective"));
    for (int listed : spec.collectives()) {
      if (listed == collective) {
        return absl::InvalidArgumentError(
            absl::StrCat("--collective: ", spec::DisplayName(collective), " is listed twice"));
      }
    }
    spec.add_collectives(collective);
  }
  spec.set_collective(static_cast<v1::Collective>(spec.collectives(0)));
  return absl::OkStatus();
}

// -d and -o: the element type and the reduction.
absl::Status AddElementType(const RunTestFlags& flags, v1::TestSpec& spec) {
  EB_ASSIGN_OR_RETURN(const v1::DataType type,
                      spec::ParseDataType(flags.data_type, "-d/--datatype"));
  spec.set_data_type(type);
  EB_ASSIGN_OR_RETURN(const v1::ReduceOp op, spec::ParseReduceOp(flags.reduce_op, "-o/--op"));
  spec.set_reduce_op(op);
  return absl::OkStatus();
}

// -b, -e, -i and -f: the sizes swept and the step between them.
absl::Status AddSweep(const RunTestFlags& flags, v1::TestSpec& spec) {
  EB_ASSIGN_OR_RETURN(const int64_t min_bytes, spec::ParseSize(flags.min_bytes, "-b/--minbytes"));
  EB_ASSIGN_OR_RETURN(const int64_t max_bytes, spec::ParseSize(flags.max_bytes, "-e/--maxbytes"));
  EB_ASSIGN_OR_RETURN(const int64_t step_bytes,
                      spec::ParseSize(flags.step_bytes, "-i/--stepbytes"));
  if (max_bytes < min_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "-e/--maxbytes: ", flags.max_bytes, " is smaller than -b/--minbytes ", flags.min_bytes));
  }
  if (flags.step_factor < 0) {
    return absl::InvalidArgumentError("-f/--stepfactor: must be >= 2 (or 0 to use -i)");
  }
  spec.set_min_bytes(min_bytes);
  spec.set_max_bytes(max_bytes);
  spec.set_step_factor(flags.step_factor);
  spec.set_step_bytes(step_bytes);
  return absl::OkStatus();
}

// -n, -w and -c: the timed, warm-up and checked iterations of each size.
absl::Status AddIterations(const RunTestFlags& flags, v1::TestSpec& spec) {
  if (flags.iterations < 1) return absl::InvalidArgumentError("-n/--iters: must be >= 1");
  if (flags.warmup_iterations < 0) {
    return absl::InvalidArgumentError("-w/--warmup_iters: must be >= 0");
  }
  if (flags.check_iterations < 0) return absl::InvalidArgumentError("-c/--check: must be >= 0");
  spec.set_iterations(flags.iterations);
  spec.set_warmup_iterations(flags.warmup_iterations);
  spec.set_check_iterations(flags.check_iterations);
  return absl::OkStatus();
}

// -r, --workers-per-node and --transport: how the ranks are laid out.
absl::Status AddRankLayout(const RunTestFlags& flags, v1::TestSpec& spec) {
  if (flags.root < 0) return absl::InvalidArgumentError("-r/--root: must be >= 0");
  if (flags.workers_per_node < 0) {
    return absl::InvalidArgumentError("--workers-per-node: must be >= 0");
  }
  spec.set_root_rank(flags.root);
  spec.set_transport(ToTransportEnum(flags.transport));
  spec.set_workers_per_node(flags.workers_per_node);
  return absl::OkStatus();
}

// --min-busbw: the average bus bandwidth the test must reach (0: none).
absl::Status AddMinBusbw(const RunTestFlags& flags, v1::TestSpec& spec) {
  if (flags.min_busbw_gbps < 0) return absl::InvalidArgumentError("--min-busbw: must be >= 0");
  spec.set_min_busbw_gbps(flags.min_busbw_gbps);
  return absl::OkStatus();
}

// --nodes: given, even empty, it must name nodes; not given, the
// coordinator takes every idle node.
absl::Status AddNodes(const RunTestFlags& flags, v1::TestSpec& spec) {
  if (!flags.nodes_given && flags.nodes.empty()) return absl::OkStatus();
  EB_ASSIGN_OR_RETURN(std::vector<std::string> nodes, ParseNodeList(flags.nodes, "--nodes"));
  for (std::string& node : nodes) spec.add_node_names(std::move(node));
  return absl::OkStatus();
}

// The four deadlines as given (0 when not), in milliseconds.
struct DeadlineFlagsMs {
  int64_t test = 0;
  int64_t launch = 0;
  int64_t init = 0;
  int64_t step = 0;
};

absl::StatusOr<DeadlineFlagsMs> ParseDeadlineFlags(const RunTestFlags& flags) {
  DeadlineFlagsMs ms;
  EB_ASSIGN_OR_RETURN(ms.test, ParseTimeoutMs(flags.timeout, "--timeout"));
  EB_ASSIGN_OR_RETURN(ms.launch, ParseTimeoutMs(flags.launch_timeout, "--launch-timeout"));
  EB_ASSIGN_OR_RETURN(ms.init, ParseTimeoutMs(flags.init_timeout, "--init-timeout"));
  EB_ASSIGN_OR_RETURN(ms.step, ParseTimeoutMs(flags.step_timeout, "--step-timeout"));
  return ms;
}

// --nccl-env KEY=VALUE, passed to the workers (the coordinator allow-lists
// the keys).
absl::Status AddNcclEnv(const RunTestFlags& flags, v1::TestSpec& spec) {
  for (const std::string& entry : flags.nccl_env) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(absl::StrCat("--nccl-env: '", entry, "' is not KEY=VALUE"));
    }
    (*spec.mutable_nccl_env())[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return absl::OkStatus();
}

// -G, -I, -a, --split-rails and --allow-drift: how the sweep is run and
// measured, and nccl-tests' pairs that cannot go together.
absl::Status AddRunModes(const RunTestFlags& flags, v1::TestSpec& spec) {
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
  return absl::OkStatus();
}

// The deadlines into the spec; nccl-tests' -T SECONDS is the step
// deadline, so it and --step-timeout cannot both be given.
absl::Status AddDeadlines(const RunTestFlags& flags, DeadlineFlagsMs ms, v1::TestSpec& spec) {
  if (flags.timeout_seconds < 0) {
    return absl::InvalidArgumentError("-T/--timeout_s: must be >= 0 seconds");
  }
  if (flags.timeout_seconds > 0) {
    if (!flags.step_timeout.empty()) {
      return absl::InvalidArgumentError(
          "-T/--timeout_s: sets the step deadline; give it or --step-timeout, not both");
    }
    ms.step = int64_t{flags.timeout_seconds} * 1000;
  }
  spec.set_timeout_ms(ms.test);
  spec.set_launch_timeout_ms(ms.launch);
  spec.set_init_timeout_ms(ms.init);
  spec.set_step_timeout_ms(ms.step);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::TestSpec> BuildSpec(const RunTestFlags& flags) {
  // The steps in this order: with several bad flags, the error names the
  // first one a step finds, as it always did.
  v1::TestSpec spec;
  EB_RETURN_IF_ERROR(AddCollectives(flags, spec));
  EB_RETURN_IF_ERROR(AddElementType(flags, spec));
  EB_RETURN_IF_ERROR(AddSweep(flags, spec));
  EB_RETURN_IF_ERROR(AddIterations(flags, spec));
  EB_RETURN_IF_ERROR(AddRankLayout(flags, spec));
  EB_RETURN_IF_ERROR(AddMinBusbw(flags, spec));
  EB_RETURN_IF_ERROR(AddNodes(flags, spec));
  EB_ASSIGN_OR_RETURN(const DeadlineFlagsMs deadlines, ParseDeadlineFlags(flags));
  EB_RETURN_IF_ERROR(AddNcclEnv(flags, spec));
  EB_RETURN_IF_ERROR(AddRunModes(flags, spec));
  EB_RETURN_IF_ERROR(AddDeadlines(flags, deadlines, spec));
  return spec;
}

}  // namespace eb::ebctl
