#pragma once

#include <string>

#include "coordinator/ebctl/command.h"

namespace eb::ebctl {

// `ebctl show TEST`: one test's report, running or recorded, as the
// nccl-tests table (or JSON); the exit code is the test's. `ebctl show
// v-...`: a validation's verdicts; with --follow, its events until it ends.
class ShowCommand final : public Command {
 public:
  std::string test_id;
  bool follow = false;
  // --progress with --follow: auto, always or never.
  std::string progress = "auto";

 protected:
  int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) override;

 private:
  int ShowValidation(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options);
};

}  // namespace eb::ebctl
