#pragma once

#include <string>

#include "absl/status/status.h"
#include "common/spec/limits.h"
#include "coordinator/ebctl/command.h"
#include "coordinator/ebctl/commands/report_file.h"

namespace eb::ebctl {

// `ebctl report ID -o FILE`: one self-contained HTML page (charts, tables,
// the report JSON inside) of a test (t-...) or a validation (v-...);
// `ebctl report --node NAME -o FILE`: one node's history (verdicts and
// busbw over time), from the newest `limit` tests and validations of the
// fleet, filtered here (the list RPCs have no node filter). Exits 0 once the
// file is written; a failed call exits as `show` does.
class ReportCommand final : public Command {
 public:
  std::string id;
  std::string node;
  std::string output;
  // --force: replace an existing regular file at `output`.
  bool force = false;
  int limit = spec::kMaxListedTests;

 protected:
  absl::Status CheckUsage() const override { return CheckReportPath(output, "-o", replace()); }
  int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) override;

 private:
  Replace replace() const { return force ? Replace::kRegularFile : Replace::kNo; }
  int NodeReport(ebnccl::v1::Control::Stub& stub);
};

// The validation page of `report` (with the node list, for repeat
// offenders, when ListNodes answers) written to `path` (report_file.h's
// rules); for `ebctl
// validate --report` and `ebctl report v-...`.
absl::Status WriteValidationReport(ebnccl::v1::Control::Stub& stub,
                                   const ebnccl::v1::ValidationReport& report,
                                   const std::string& path, Replace replace);

}  // namespace eb::ebctl
