#pragma once

// `ebctl run-test`: one test with nccl-tests' flags, streamed as the
// nccl-tests table (or JSON), with nccl-tests-compatible exit codes.

#include "coordinator/ebctl/command.h"
#include "coordinator/ebctl/input/run_test_flags.h"

namespace eb::ebctl {

class RunTestCommand final : public Command {
 public:
  RunTestFlags flags;
  // --json-lines: one JSON object per result row as it arrives, then the
  // report (output/json_lines.h), instead of the table or --json.
  bool json_lines = false;
  // --progress: auto, always or never (output/progress_style.h).
  std::string progress = "auto";

 protected:
  absl::Status CheckUsage() const override { return BuildSpec(flags).status(); }
  int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) override;
};

}  // namespace eb::ebctl
