#pragma once

// The flags of `ebctl run-test` (nccl-tests' names and defaults) as typed,
// and their translation into the TestSpec the coordinator runs. Pure;
// callable from any thread.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::ebctl {

// Flags as typed; parsed and checked by BuildSpec. --collective takes one
// name, a comma-separated list (run one after the other on one
// communicator) or `all` (the seven).
struct RunTestFlags {
  std::string collective = "all_reduce";
  std::string min_bytes = "32M";
  std::string max_bytes = "32M";
  std::string step_bytes = "1M";
  int64_t step_factor = 0;
  int iterations = 20;
  int warmup_iterations = 1;
  int check_iterations = 1;
  std::string data_type = "float";
  std::string reduce_op = "sum";
  int root = 0;
  std::string nodes;
  // --nodes was given: then the list must name at least one node (an empty
  // "" or ",," is an error, never "every idle node").
  bool nodes_given = false;
  int workers_per_node = 0;
  std::string transport = "auto";
  std::string timeout;
  std::string launch_timeout;
  std::string init_timeout;
  std::string step_timeout;
  double min_busbw_gbps = 0;
  // KEY=VALUE NCCL overrides (allow-listed by the coordinator).
  std::vector<std::string> nccl_env;
  // nccl-tests -G: capture and replay the timed iterations as a CUDA graph.
  int cuda_graph = 0;
  // Also run the sweep on one sub-communicator per local rank (a rail).
  bool split_rails = false;
  bool allow_drift = false;
  // nccl-tests -J FILE: the table on stdout and the JSON report to FILE
  // (created exclusively; FILE.0, FILE.1, ... when it exists, as nccl-tests).
  std::string output_file;
  // nccl-tests -I 0/1: per-iteration timing.
  int per_iter_timing = 0;
  // nccl-tests -a 0..3 (rank 0, average, min, max); average_given says the
  // flag was on the command line (unset keeps the spec's field unset).
  int average = 1;
  bool average_given = false;
  // nccl-tests -T SECONDS: a stuck wait fails the test with a timeout
  // (exit 4); here the deadline of one size step (--step-timeout).
  int timeout_seconds = 0;
  // nccl-tests -g (GPUs per thread) and -t (threads per process): always 1
  // here (one rank per GPU, one process each); only checked, never sent
  // (input/cli_checks.h, NcclTestsThreadingNote).
  int gpus_per_thread = 1;
  int threads_per_process = 1;
};

// Turns the flags into a TestSpec. INVALID_ARGUMENT naming the flag, e.g.
// "-e/--maxbytes: 8 is smaller than -b/--minbytes 1M". Limits that depend
// on the fleet (root inside the world, known nodes, free slots) are the
// coordinator's to check.
absl::StatusOr<ebnccl::v1::TestSpec> BuildSpec(const RunTestFlags& flags);

}  // namespace eb::ebctl
