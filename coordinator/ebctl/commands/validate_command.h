#pragma once

#include <string>

#include "coordinator/ebctl/command.h"
#include "coordinator/ebctl/commands/report_file.h"
#include "coordinator/ebctl/input/validate_flags.h"

namespace eb::ebctl {

// `ebctl validate`: starts a fleet validation on the coordinator and
// follows it to its verdicts (exit 0 all healthy, 7 anything bad:
// docs/EXIT_CODES.md). Ctrl-C cancels the validation; --detach prints its
// id and returns, leaving it running. --report FILE also writes the
// validation's HTML page (`ebctl report v-...`) when it ends.
class ValidateCommand final : public Command {
 public:
  ValidateFlags flags;
  // --report: the HTML page to write at the end; empty = none.
  std::string report_path;
  // --force: --report may replace an existing regular file.
  bool force = false;
  // --progress: auto, always or never (output/validation_progress.h).
  std::string progress = "auto";

 protected:
  int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) override;

  absl::Status CheckUsage() const override;

 private:
  Replace Replacing() const { return force ? Replace::kRegularFile : Replace::kNo; }
};

}  // namespace eb::ebctl
