#pragma once

// `ebctl run-test`: one test with nccl-tests' flags, streamed as the
// nccl-tests table (or JSON), with nccl-tests-compatible exit codes.

#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "coordinator/ebctl/command.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::ebctl {

// Flags as typed; parsed and checked by BuildSpec.
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
};

// Turns the flags into a TestSpec. INVALID_ARGUMENT naming the flag.
absl::StatusOr<ebnccl::v1::TestSpec> BuildSpec(const RunTestFlags& flags);

class RunTestCommand final : public Command {
 public:
  RunTestFlags flags;

 protected:
  int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) override;
};

}  // namespace eb::ebctl
